import type { RunEvents, RunRef } from '../runs/run-events.ts'
import type { AgentToolHooks } from '../runs/tool-hooks.ts'
import type { HookDispatcher } from './dispatcher.ts'
import { stableJson } from '../../runtime/stable-json.ts'

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
 */
export function hookToolGate(
  dispatcher: HookDispatcher,
  events: RunEvents,
  run: RunRef,
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
            reason = verdict.reason ?? 'a hook denied this call'
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
