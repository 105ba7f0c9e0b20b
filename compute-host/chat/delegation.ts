import type { DelegationConfig } from '@mastra/core/agent'
import type { AgentRuntimeSettings } from '../../runtime/contracts/settings.ts'
import type { ActivityLog } from './activity.ts'
import type { UsageMeter } from './usage.ts'

export const STEP_CEILING_KEY = 'popagent.stepCeiling'

/**
 * How the supervisor delegates, all from the run's settings snapshot:
 * - a specialist's step ceiling can be lowered by the supervisor but never raised;
 * - the specialist sees at most the newest N parent messages within a character budget;
 * - only the specialist's text returns to the supervisor (Mastra's default keeps nested tool
 *   payloads out), truncated to the configured length with the configured marker;
 * - a failed delegation returns the configured failure text, never a stack or raw payload.
 * Each delegation is also an activity item, and its token usage is counted under its model.
 */
export function delegationConfig(options: {
  settings: AgentRuntimeSettings
  activity: ActivityLog
  usage: UsageMeter
  agents: Record<string, { name: string; model: string }>
}): DelegationConfig {
  const { settings, activity, usage, agents } = options
  const nameOf = (id: string) => agents[id]?.name ?? id

  return {
    includeSubAgentToolResultsInModelContext: false,
    hookErrorStrategy: 'throw',
    onDelegationStart(context) {
      const requested = context.params.maxSteps
      const ceiling = Math.min(requested ?? Infinity, settings.specialistMaxSteps)
      context.requestContext.set(STEP_CEILING_KEY, ceiling)
      activity.start(context.toolCallId, {
        kind: 'delegation',
        agentId: context.primitiveId,
        agentName: nameOf(context.primitiveId),
        input: context.prompt,
      })
      return { proceed: true, modifiedMaxSteps: ceiling }
    },
    messageFilter({ messages }) {
      return sliceContext(
        messages,
        settings.delegationContextMaxMessages,
        settings.delegationContextMaxChars,
      )
    },
    onDelegationComplete(context) {
      const model = agents[context.primitiveId]?.model
      if (model && context.result.usage) usage.add(model, context.result.usage)
      if (!context.success || context.error) {
        activity.finish(context.toolCallId, { error: context.error ?? 'the delegation failed' })
        return { resultText: settings.delegationFailureText }
      }
      const text = context.result.text ?? ''
      activity.finish(context.toolCallId, { output: text })
      if (text.length <= settings.delegationResultMaxChars) return
      return {
        resultText: `${text.slice(0, settings.delegationResultMaxChars)}${settings.delegationTruncationText}`,
      }
    },
  }
}

/** The newest `maxMessages` messages whose serialized size fits `maxChars`, oldest first. */
export function sliceContext<T>(messages: T[], maxMessages: number, maxChars: number): T[] {
  const kept: T[] = []
  let chars = 0
  for (let i = messages.length - 1; i >= 0 && kept.length < maxMessages; i--) {
    const size = JSON.stringify(messages[i]).length
    if (chars + size > maxChars) break
    chars += size
    kept.unshift(messages[i]!)
  }
  return kept
}
