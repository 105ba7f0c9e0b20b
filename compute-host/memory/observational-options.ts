import type { Memory } from '@mastra/memory'
import type { MemorySettings } from '../../runtime/contracts/settings.ts'
import { modelRouteOf, type RunContext } from '../agents/run-context.ts'
import type { GatewayModels } from '../models/gateway-models.ts'

type MemoryOptions = NonNullable<ConstructorParameters<typeof Memory>[0]>['options']
type OmOptions = Exclude<NonNullable<NonNullable<MemoryOptions>['observationalMemory']>, boolean>

// Before the first observation (or with Observational Memory off) the thread's raw history is
// what the model sees; keep a generous window of it.
const RAW_HISTORY_MESSAGES = 40

/**
 * Mastra memory options from the persisted memory settings. Observer and Reflector run on the
 * run's selected gateway route (read from the request context), never a vendor default.
 *
 * Two traps of the pinned Mastra (notes/mastra-memory.md): per-phase activation options are
 * ignored, so activation is set at the top level; and `previousObserverTokens` silently
 * defaults to 2000, so it is always set explicitly.
 */
export function memoryOptions(settings: MemorySettings, models: GatewayModels): MemoryOptions {
  const base = {
    lastMessages: RAW_HISTORY_MESSAGES,
    semanticRecall: false,
    workingMemory: { enabled: false },
  } as const
  if (!settings.enabled) return { ...base, observationalMemory: false }
  const model = ({ requestContext }: { requestContext: unknown }) =>
    models.languageModel(modelRouteOf(requestContext as RunContext))
  const observationalMemory: OmOptions = {
    scope: 'thread',
    observation: {
      model,
      messageTokens: settings.observationMessageTokens,
      bufferActivation: settings.rawHistoryRetention,
      bufferTokens: settings.asyncBuffering ? settings.observationBufferTokens : false,
      blockAfter: settings.observationBlockAfter,
      previousObserverTokens: settings.previousObserverTokens,
      observeAttachments: ATTACHMENTS[settings.observeAttachments],
      continuationHints: { suggestedResponse: false },
      ...(settings.observerInstruction && { instruction: settings.observerInstruction }),
    },
    reflection: {
      model,
      observationTokens: settings.reflectionObservationTokens,
      bufferActivation: settings.reflectionBufferActivation,
      blockAfter: settings.reflectionBlockAfter,
      ...(settings.reflectorInstruction && { instruction: settings.reflectorInstruction }),
    },
    activateAfterIdle: settings.activateAfterIdle === 'off' ? false : settings.activateAfterIdle,
    activateOnProviderChange: settings.activateOnProviderChange,
    shareTokenBudget: settings.shareTokenBudget,
    temporalMarkers: settings.temporalMarkers,
    ...(settings.retrievalScope !== 'off' && { retrieval: { scope: settings.retrievalScope } }),
  }
  return { ...base, observationalMemory }
}

const ATTACHMENTS = { auto: 'auto', on: true, off: false } as const
