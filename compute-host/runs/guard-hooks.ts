import { createHash } from 'node:crypto'
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
 * - the loop breaker: a call with the same arguments is not run again in this run once it failed
 *   the same way `repeatLimit` times, or returned the same result `repeatLimit` times in a row (a
 *   call stuck without failing); a call whose result changes (a poll that sees progress) is not a
 *   loop. A delegation with the same prompt is not repeated past the same limit.
 *
 * A refusal is the tool's result, and a `guard` event for observers. A loop refusal also ends the
 * agent's loop: its next step is its answering step, without tools and told why (budget.ts), so a
 * model that keeps asking for a refused call cannot run on to its step limit. A specialist stopped
 * so returns to the supervisor with that answer; the second agent stopped ends the whole run.
 *
 * Across a task tree: the calls the loop breaker took out of a task are carried to its
 * remediation (`carried`, by digest: the tool and its arguments, whichever agent asks), which
 * refuses them from its first attempt, telling the model why; asking again is a loop as above.
 * `onBroken` hears each call as it is taken out, so the task driver can keep it for the tree.
 */
export function guardHooks(options: {
  budget: RunBudget
  repeatLimit: number
  events: RunEvents
  run: RunRef
  carried?: ReadonlyMap<string, string>
  onBroken?: (call: BrokenCall) => void
}): AgentToolHooks {
  const { budget, repeatLimit, events, run } = options
  const failures = new Map<string, number>()
  // The same result in a row, per call: the result's digest and how many times it came.
  const results = new Map<string, { digest: string; streak: number }>()
  // Calls not run again, with why.
  const broken = new Map<string, string>()
  const delegations = new Map<string, number>()
  const markBroken = (call: string, tool: string, input: unknown, why: string) => {
    if (broken.has(call)) return
    broken.set(call, why)
    options.onBroken?.({ tool, digest: callDigest(tool, input), why })
  }
  return (agent) => {
    const who = { agentId: agent.id, agentName: agent.name }
    const refuse = (guard: 'budget' | 'loop' | 'delegation', tool: string, message: string) => {
      events.emit({ type: 'guard', run, guard, tool, message, ...who })
      // A delegation's result reaches the supervisor as its `text` only (delegation.ts).
      const output = tool.startsWith('agent-') ? { text: message } : { error: message }
      return { proceed: false as const, output }
    }
    const stopLoop = (tool: string, why: string, outcome = 'It will not be run again') => {
      budget.stopAgent(
        agent.id,
        `The loop breaker stopped you: ${why}. Do not call any tools. Answer now with what you have, say that the loop breaker stopped ${tool}, and say plainly what is unfinished.`,
      )
      return refuse('loop', tool, `${why}. ${outcome} in this run.`)
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
        const why = broken.get(call)
        if (why !== undefined) return stopLoop(toolName, why)
        const inherited = options.carried?.get(callDigest(toolName, input))
        if (inherited !== undefined) {
          // Refused at once; asked again, it stops the agent like any broken call.
          const carriedWhy = `The task this remediates was stopped on this exact call (${inherited})`
          broken.set(call, carriedWhy)
          return refuse('loop', toolName, `${carriedWhy}. It will not be run in this task tree.`)
        }
        if (delegation) {
          const count = (delegations.get(call) ?? 0) + 1
          if (count > repeatLimit) {
            return stopLoop(
              toolName,
              `The same delegation with the same prompt was already made ${repeatLimit} times`,
              'It will not be made again',
            )
          }
          delegations.set(call, count)
        }
        return undefined
      },
      afterToolCall: ({ toolName, input, output, error }) => {
        const call = callKey(agent.id, toolName, input)
        const failure = failureOf(output, error)
        if (failure === undefined) {
          const digest = digestOf(output)
          const last = results.get(call)
          const streak = last?.digest === digest ? last.streak + 1 : 1
          results.set(call, { digest, streak })
          if (streak >= repeatLimit && !toolName.startsWith('agent-')) {
            markBroken(
              call,
              toolName,
              input,
              `This exact call returned the same result ${repeatLimit} times in a row`,
            )
          }
          return
        }
        results.delete(call)
        const same = `${call}\0${failure}`
        const count = (failures.get(same) ?? 0) + 1
        failures.set(same, count)
        if (count >= repeatLimit) {
          markBroken(
            call,
            toolName,
            input,
            `This exact call failed the same way ${repeatLimit} times`,
          )
        }
      },
    }
  }
}

/** A call the loop breaker took out of a run, as the task tree keeps it. */
export type BrokenCall = { tool: string; digest: string; why: string }

/**
 * A call's identity across a task tree: the tool and its arguments, digested (the arguments may
 * hold what must not be stored; the transcript keeps only this).
 */
export function callDigest(tool: string, input: unknown): string {
  return createHash('sha256')
    .update(`${tool}\0${stableJson(input ?? null)}`)
    .digest('base64url')
}

/** One call's identity: who called which tool with which arguments (key order ignored). */
function callKey(agentId: string, tool: string, input: unknown): string {
  return `${agentId}\0${tool}\0${stableJson(input)}`
}

function digestOf(output: unknown): string {
  return createHash('sha256')
    .update(stableJson(output ?? null))
    .digest('base64')
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
