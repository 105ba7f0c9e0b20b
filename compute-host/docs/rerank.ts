import { generateText } from 'ai'
import type { DocChunkRow } from '../../runtime/docs/search.ts'
import { errorMessage } from '../../runtime/error-message.ts'
import type { GatewayModels } from '../models/gateway-models.ts'

// How many fused candidates the local model orders, how much of each it reads, how long it may take.
export const RERANK_CANDIDATES = 20
const PASSAGE_CHARS = 400
const RERANK_TIMEOUT_MS = 5_000

export type Reranker = (
  model: string,
  query: string,
  rows: DocChunkRow[],
  signal?: AbortSignal,
) => Promise<DocChunkRow[]>

/**
 * Orders search candidates with the local model (through the gateway and the local admission
 * queue, like every local call). The model answers passage numbers, best first; only numbers are
 * read from its answer, so a passage that tries to instruct it can at most move itself, and any
 * candidate it leaves out keeps its fusion order after the ones it named. A timeout, an error or
 * an answer with no usable number throws: the caller keeps the fusion order and says why.
 */
export function createLocalReranker(models: GatewayModels): Reranker {
  return async (model, query, rows, signal) => {
    const passages = rows
      .map(
        (r, i) => `[${i + 1}] ${r.title} — ${r.heading_path}\n${r.content.slice(0, PASSAGE_CHARS)}`,
      )
      .join('\n\n')
    const timeout = AbortSignal.timeout(RERANK_TIMEOUT_MS)
    const { text } = await generateText({
      model: models.languageModel(model),
      maxRetries: 0,
      abortSignal: signal ? AbortSignal.any([timeout, signal]) : timeout,
      prompt:
        'Order these documentation passages by how well they answer the question. Answer only ' +
        'with the passage numbers, best first, separated by commas.\n\n' +
        `Question: ${query}\n\n${passages}`,
    })
    const order = [...new Set((text.match(/\d+/g) ?? []).map(Number))].filter(
      (n) => n >= 1 && n <= rows.length,
    )
    if (order.length === 0) {
      throw new Error(`the answer named no passage: ${JSON.stringify(text.slice(0, 80))}`)
    }
    const named = order.map((n) => rows[n - 1]!)
    return [...named, ...rows.filter((r) => !named.includes(r))]
  }
}

/** The rerank step's outcome in words, for the search's `method`. */
export const rerankFailure = (model: string, error: unknown) =>
  `; reranking by ${model} failed (${errorMessage(error).slice(0, 120)}), so the fusion order stands`
