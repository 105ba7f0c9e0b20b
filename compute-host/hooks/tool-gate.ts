import type { Approvals } from '../approvals/approvals.ts'
import type { RunEvents, RunRef } from '../runs/run-events.ts'
import type { AgentToolHooks } from '../runs/tool-hooks.ts'
import type { HookDispatcher } from './dispatcher.ts'
import { stableJson } from '../../runtime/stable-json.ts'
import { ASK_TIMEOUT_DEFAULT_S } from '../../runtime/hooks/verdict.ts'

export type HookToolGate = {
  hooks: AgentToolHooks
  /** The first denial's reason in this run, if a hook denied a tool call. */
  denial(): string | undefined
}

/**
 * PreToolUse and PostToolUse on the run path's tool hooks. Before every tool call of every agent
 * (delegations included) the PreToolUse hooks decide: a deny is final, so the tool does not run
 * and the model gets the reason as the call's result, told not to retry; the refusal is also a
 * `guard` event, so the activity log and the task transcript show it. PostToolUse hooks hear
 * each call that ran, after it, without holding the run up.
 *
 * An `ask` hands the call to the owner (compute-host/approvals/): the call waits, within the
 * hook's bound and until the run stops, for an answer on the web UI or a channel button. Allowed,
 * it runs; denied, unanswered or stopped, it is refused exactly as a hook's deny is, the reason
 * saying which. A host without approvals refuses an `ask` (nobody could answer it).
 */
export function hookToolGate(
  dispatcher: HookDispatcher,
  events: RunEvents,
  run: RunRef,
  options: { approvals?: Approvals | undefined; signal?: AbortSignal | undefined } = {},
): HookToolGate {
  let first: string | undefined
  // Denial is final within the run: the same call (agent, tool, input) asked again is refused
  // with the same reason without running the hooks again.
  const denied = new Map<string, string>()
  const scope = {
    runId: run.runId,
    workspaceId: run.workspaceId,
    ...(run.sessionId && { sessionId: run.sessionId }),
    ...(run.taskId && { taskId: run.taskId }),
  }
  /** The owner's answer to an `ask`: undefined when allowed, else why the call is refused. */
  async function askOwner(
    toolName: string,
    input: unknown,
    verdict: { reason: string | null; askTimeoutS?: number },
    agent: { id: string; name: string },
  ): Promise<string | undefined> {
    const why = verdict.reason ? ` (asked because: ${verdict.reason})` : ''
    if (!options.approvals) return `a hook asked the owner, but this host cannot ask${why}`
    const timeoutS = verdict.askTimeoutS ?? ASK_TIMEOUT_DEFAULT_S
    const answer = await options.approvals.ask({
      toolName,
      input,
      reason: verdict.reason,
      scope,
      agent,
      timeoutMs: timeoutS * 1000,
      signal: options.signal,
    })
    if (answer.status === 'allowed') return undefined
    if (answer.status === 'denied') return `the owner denied this call${why}`
    if (options.signal?.aborted) return `the run stopped before the owner answered${why}`
    return `the owner did not answer within ${timeoutS} s, and an unanswered approval is a deny${why}`
  }

  return {
    denial: () => first,
    hooks: (agent) => {
      const refused = new WeakSet<object>()
      return {
        beforeToolCall: async ({ toolName, input, context }) => {
          const call = `${agent.id}\u0000${toolName}\u0000${stableJson(input)}`
          let reason = denied.get(call)
          if (reason === undefined) {
            const verdict = await dispatcher.dispatch({
              event: 'PreToolUse',
              scope,
              toolName,
              data: { agent: agent.id, input },
            })
            if (verdict.decision === 'allow') return undefined
            if (verdict.decision === 'ask') {
              const refusal = await askOwner(toolName, input, verdict, agent)
              if (refusal === undefined) return undefined
              reason = refusal
            } else {
              reason = verdict.reason ?? 'a hook denied this call'
            }
            denied.set(call, reason)
          }
          first ??= reason
          if (context && typeof context === 'object') refused.add(context)
          const message = `Denied by policy (a PreToolUse hook): ${reason}. This decision is final: do not retry this call; continue without it or explain why you cannot.`
          events.emit({
            type: 'guard',
            run,
            guard: 'hook',
            tool: toolName,
            message,
            agentId: agent.id,
            agentName: agent.name,
          })
          const output = toolName.startsWith('agent-') ? { text: message } : { error: message }
          return { proceed: false as const, output }
        },
        afterToolCall: ({ toolName, output, error, context }) => {
          if (context && typeof context === 'object' && refused.has(context)) return
          void dispatcher
            .dispatch({
              event: 'PostToolUse',
              scope,
              toolName,
              data: { agent: agent.id, output, error: error ? String(error) : undefined },
            })
            .catch(() => {})
        },
      }
    },
  }
}
