import type { ToolHooks } from '@mastra/core/tools'
import type { RunAgent, RunEvents, RunRef } from './run-events.ts'

/** Tool hooks for one agent of a run; each concern (activity, hooks, budgets) gives one. */
export type AgentToolHooks = (agent: { id: string; name: string }) => ToolHooks

/**
 * Several tool hooks as one, in list order. `beforeToolCall` runs each in turn and stops at the
 * first that refuses the call (`proceed: false`), whose output becomes the tool's result; later
 * hooks never see a refused call. `afterToolCall` reaches every hook, in the same order.
 */
export function composeToolHooks(list: readonly AgentToolHooks[]): AgentToolHooks {
  return (agent) => {
    const hooks = list.map((make) => make(agent))
    return {
      beforeToolCall: async (context) => {
        for (const hook of hooks) {
          const verdict = await hook.beforeToolCall?.(context)
          if (verdict && verdict.proceed === false) return verdict
        }
        return undefined
      },
      afterToolCall: async (context) => {
        for (const hook of hooks) await hook.afterToolCall?.(context)
      },
    }
  }
}

/**
 * Reports every tool call of an agent as `tool-start` and `tool-end` run events. Delegations
 * (`agent-*` tools) are left to the delegation hooks, which know the specialist.
 */
export function toolCallEvents(events: RunEvents, run: RunRef): AgentToolHooks {
  let counter = 0
  return (agent) => {
    const who: RunAgent = { agentId: agent.id, agentName: agent.name }
    // Mastra hands both hooks of one call the same execution context object: pair on it, so
    // parallel calls of one tool finishing out of order keep their own results. The name queue is
    // the fallback for a call that has no context.
    const byCall = new WeakMap<object, string>()
    const open = new Map<string, string[]>()
    const delegation = (toolName: string) => toolName.startsWith('agent-')
    return {
      beforeToolCall: ({ toolName, input, context }) => {
        if (delegation(toolName)) return
        const callId = `act_${agent.id}_${++counter}`
        if (context && typeof context === 'object') byCall.set(context, callId)
        else open.set(toolName, [...(open.get(toolName) ?? []), callId])
        events.emit({ type: 'tool-start', run, callId, tool: toolName, input, ...who })
      },
      afterToolCall: ({ toolName, output, error, context }) => {
        if (delegation(toolName)) return
        const callId =
          context && typeof context === 'object'
            ? byCall.get(context)
            : (open.get(toolName) ?? []).shift()
        if (!callId) return
        events.emit({ type: 'tool-end', run, callId, tool: toolName, output, error, ...who })
      },
    }
  }
}
