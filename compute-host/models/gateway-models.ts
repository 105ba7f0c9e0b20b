// models/: language models built on the gateway, and local-model admission. HTTP is gateway/.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { wrapLanguageModel } from 'ai'
import { holdLeaseForStream, type AdmissionQueue } from './admission-queue.ts'
import { createRedactor } from '../../runtime/redaction.ts'
import { redactingFetch } from '../gateway/redacting-fetch.ts'

/**
 * An AI SDK v4-specification language model as the pinned provider builds it, the type Mastra's
 * bundled provider types accept (`ai`'s own copy of the spec has drifted by a finish
 * reason, so the admission-wrapped model is narrowed back to this type).
 */
export type GatewayLanguageModel = ReturnType<
  ReturnType<typeof createOpenAICompatible>['chatModel']
>

const KEPT_MODELS = 32

export type GatewayModels = {
  /** A language model for one gateway route; local routes pass the admission queue. */
  languageModel(modelId: string): GatewayLanguageModel
  /** An embedding model on the same provider (`/v1/embeddings`), behind the same redacting fetch. */
  embeddingModel(modelId: string): GatewayEmbeddingModel
}

export type GatewayEmbeddingModel = ReturnType<
  ReturnType<typeof createOpenAICompatible>['embeddingModel']
>

/**
 * Model access for the whole host: one OpenAI-compatible provider pointed at the gateway (9Router),
 * so no vendor SDK appears in application code and the provider stays swappable (M1).
 *
 * Routes the configuration marks local are wrapped so every generation first takes a slot in the
 * admission queue, waiting FIFO, leaving the queue if its call is aborted, and holding the slot
 * until the response stream ends or is cancelled, not merely until the request was sent.
 */
export function createGatewayModels(options: {
  url: string
  apiKey?: string
  localModels: { queue: AdmissionQueue; isLocal: (modelId: string) => boolean }
  fetch?: typeof fetch
  /** The host's redactor; without one, error bodies are cleaned of the gateway key only. */
  redact?: (text: string) => string
}): GatewayModels {
  const provider = createOpenAICompatible({
    name: 'gateway',
    baseURL: options.url.replace(/\/+$/, ''),
    ...(options.apiKey && { apiKey: options.apiKey }),
    includeUsage: true,
    // Tool results that are a content list (the browser's screenshots) reach the model as their
    // parts, an image as an image; every other tool's result is text or JSON and unchanged.
    supportsMultiPartToolContent: true,
    fetch: redactingFetch(options.redact ?? createRedactor([options.apiKey]), options.fetch),
  })
  const { queue, isLocal } = options.localModels
  // A model holds only its id and the provider's settings, but building one builds its stream's
  // zod schemas: every agent of every run asked for one, about 0.1 ms each. Kept per id, bounded
  // because a chat request may name any model when there is no catalog to check it against.
  const built = new Map<string, GatewayLanguageModel>()

  function languageModel(modelId: string): GatewayLanguageModel {
    const model = provider.chatModel(modelId)
    if (!isLocal(modelId)) return model
    const wrapped = wrapLanguageModel({
      model,
      middleware: {
        specificationVersion: 'v4',
        async wrapGenerate({ doGenerate, params }) {
          const lease = await queue.acquire(params.abortSignal)
          try {
            return await doGenerate()
          } finally {
            lease.release()
          }
        },
        async wrapStream({ doStream, params }) {
          const lease = await queue.acquire(params.abortSignal)
          try {
            const result = await doStream()
            return { ...result, stream: holdLeaseForStream(result.stream, lease) }
          } catch (error) {
            lease.release()
            throw error
          }
        },
      },
    })
    return wrapped as unknown as GatewayLanguageModel
  }

  return {
    embeddingModel: (modelId) => provider.embeddingModel(modelId),
    languageModel(modelId) {
      const known = built.get(modelId)
      if (known) return known
      const model = languageModel(modelId)
      built.set(modelId, model)
      if (built.size > KEPT_MODELS) built.delete(built.keys().next().value!)
      return model
    },
  }
}
