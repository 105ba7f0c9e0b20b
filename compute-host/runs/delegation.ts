import type { DelegationConfig } from '@mastra/core/agent'
import type { AgentRuntimeSettings } from '../../runtime/contracts/settings.ts'
import type { RunEvents, RunRef } from './run-events.ts'
import type { UsageMeter } from './usage.ts'

export const STEP_CEILING_KEY = 'popagent.stepCeiling'

/**
 * How the supervisor delegates, all from the run's settings snapshot:
 * - a specialist's step ceiling can be lowered by the supervisor but never raised;
 * - the specialist sees at most the newest N parent messages within a character budget, and none
 *   of the supervisor's system messages;
 * - only the specialist's text returns to the supervisor (Mastra's default keeps nested tool
 *   payloads out), truncated to the configured length with the configured marker;
 * - a failed delegation returns the configured failure text, never a stack or raw payload.
 * Each delegation is reported as run events, and its token usage is counted under its model and
 * under the specialist (two agents sharing one model are still told apart).
 */
export function delegationConfig(options: {
  settings: AgentRuntimeSettings
  events: RunEvents
  run: RunRef
  usage: UsageMeter
  agents: Record<string, { name: string; model: string }>
}): DelegationConfig {
  const { settings, events, run, usage, agents } = options
  const specialist = (id: string) => ({ agentId: id, agentName: agents[id]?.name ?? id })

  return {
    includeSubAgentToolResultsInModelContext: false,
    hookErrorStrategy: 'throw',
    onDelegationStart(context) {
      const requested = context.params.maxSteps
      const ceiling = Math.min(requested ?? Infinity, settings.specialistMaxSteps)
      context.requestContext.set(STEP_CEILING_KEY, ceiling)
      events.emit({
        type: 'delegation-start',
        run,
        callId: context.toolCallId,
        ...specialist(context.primitiveId),
        prompt: context.prompt,
      })
      return { proceed: true, modifiedMaxSteps: ceiling }
    },
    messageFilter({ messages }) {
      // The supervisor's own system messages (its instructions, skills, the brief) are not the
      // specialist's: it has its own, and would otherwise read that it is the orchestrator.
      return sliceContext(
        messages.filter((m) => m.role !== 'system'),
        settings.delegationContextMaxMessages,
        settings.delegationContextMaxChars,
      )
    },
    onDelegationComplete(context) {
      const callId = context.toolCallId
      const model = agents[context.primitiveId]?.model
      const used = context.result.usage
      if (model && used) usage.add(model, used, context.primitiveId)
      const spent = { ...(model && { model }), ...(used && { usage: used }) }
      if (!context.success || context.error) {
        const error = context.error ?? 'the delegation failed'
        events.emit({
          type: 'delegation-end',
          run,
          callId,
          ...specialist(context.primitiveId),
          error,
          ...spent,
        })
        return { resultText: settings.delegationFailureText }
      }
      const text = context.result.text ?? ''
      events.emit({
        type: 'delegation-end',
        run,
        callId,
        ...specialist(context.primitiveId),
        output: text,
        ...spent,
      })
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
