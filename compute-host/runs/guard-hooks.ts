import type { RunBudget } from './budget.ts'
import type { RunEvents, RunRef } from './run-events.ts'
import type { AgentToolHooks } from './tool-hooks.ts'
import { stableJson } from '../../runtime/stable-json.ts'

const FAILURE_CHARS = 300

/**
 * The run's guard rails as one tool hook (B1), ahead of every other hook so a refused call is
 * never run, reported or counted twice:
 * - the budget: every call is claimed against the tool-call limit before anything else (a refused
 *   one too), and once any limit is reached every call is refused with the reason;
 * - delegation depth: with depth 0 the supervisor's delegation tools refuse;
 * - the loop breaker: a call with the same arguments that failed the same way `repeatLimit`
 *   times is not run again in this run, and a delegation with the same prompt is not repeated
 *   past the same limit.
 * Each refusal goes to the model as the tool's result, and to observers as a `guard` event.
 */
export function guardHooks(options: {
  budget: RunBudget
  repeatLimit: number
  events: RunEvents
  run: RunRef
}): AgentToolHooks {
  const { budget, repeatLimit, events, run } = options
  const failures = new Map<string, number>()
  const broken = new Set<string>()
  const delegations = new Map<string, number>()
  return (agent) => {
    const who = { agentId: agent.id, agentName: agent.name }
    const refuse = (guard: 'budget' | 'loop' | 'delegation', tool: string, message: string) => {
      events.emit({ type: 'guard', run, guard, tool, message, ...who })
      // A delegation's result reaches the supervisor as its `text` only (delegation.ts).
      const output = tool.startsWith('agent-') ? { text: message } : { error: message }
      return { proceed: false as const, output }
    }
    return {
      beforeToolCall: ({ toolName, input }) => {
        const call = callKey(agent.id, toolName, input)
        const delegation = toolName.startsWith('agent-')
        // Every call the model makes counts, refused or not, so a model that keeps asking for
        // refused calls still reaches the end of its budget.
        if (!budget.claimToolCall()) {
          return refuse('budget', toolName, budget.endedMessage() ?? 'The budget has ended.')
        }
        if (delegation && budget.limits.delegationDepth < 1) {
          return refuse('delegation', toolName, 'Delegation is off for this run by its budget.')
        }
        if (broken.has(call)) {
          return refuse(
            'loop',
            toolName,
            `This exact call failed the same way ${repeatLimit} times and will not be run again in this run. Change the approach or the arguments, or answer with what you have.`,
          )
        }
        if (delegation) {
          const count = (delegations.get(call) ?? 0) + 1
          if (count > repeatLimit) {
            return refuse(
              'loop',
              toolName,
              `The same delegation with the same prompt was already made ${repeatLimit} times in this run; it will not be made again. Use what came back, or ask differently.`,
            )
          }
          delegations.set(call, count)
        }
        return undefined
      },
      afterToolCall: ({ toolName, input, output, error }) => {
        const failure = failureOf(output, error)
        if (failure === undefined) return
        const call = callKey(agent.id, toolName, input)
        const same = `${call}\0${failure}`
        const count = (failures.get(same) ?? 0) + 1
        failures.set(same, count)
        if (count >= repeatLimit) broken.add(call)
      },
    }
  }
}

/** One call's identity: who called which tool with which arguments (key order ignored). */
function callKey(agentId: string, tool: string, input: unknown): string {
  return `${agentId}\0${tool}\0${stableJson(input)}`
}

/** How a call failed, bounded; undefined when it did not (a thrown error or an `error` result). */
function failureOf(output: unknown, error: unknown): string | undefined {
  const reported =
    error ??
    (output && typeof output === 'object' && 'error' in output
      ? (output as { error: unknown }).error
      : undefined)
  if (reported === undefined || reported === null || reported === false) return undefined
  const text = reported instanceof Error ? reported.message : stableJson(reported)
  return text.slice(0, FAILURE_CHARS)
}
