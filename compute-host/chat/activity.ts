import type { ToolHooks } from '@mastra/core/tools'
import { ACTIVITY_PART, type AgentActivity } from '../../runtime/contracts/chat.ts'

const SUMMARY_CHARS = 2_000

export type ActivityPart = { type: typeof ACTIVITY_PART; id: string; data: AgentActivity }

/**
 * The turn's specialist activity. Every change is streamed at once as a transient
 * `data-agentActivity` part (the UI updates the item with the same id in place); the final state
 * of each item, in first-seen order, is what the assistant message keeps, so a reopened session
 * shows the same activity. Summaries are bounded and pass the redactor before they go anywhere.
 */
export function createActivityLog(options: {
  emit: (part: ActivityPart & { transient: true }) => void
  redact: (text: string) => string
  now?: () => number
}) {
  const now = options.now ?? Date.now
  const items = new Map<string, { data: AgentActivity; started: number }>()
  let counter = 0

  const summary = (value: unknown) => {
    if (value === undefined) return undefined
    const text = typeof value === 'string' ? value : safeJson(value)
    const bounded =
      text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS)}… [truncated]` : text
    return options.redact(bounded)
  }

  function put(id: string, data: AgentActivity) {
    const existing = items.get(id)
    items.set(id, { data, started: existing?.started ?? now() })
    options.emit({ type: ACTIVITY_PART, id, data, transient: true })
  }

  return {
    start(
      id: string,
      fields: Pick<AgentActivity, 'kind' | 'agentId' | 'agentName' | 'tool'> & { input?: unknown },
    ) {
      const { input, ...rest } = fields
      put(id, {
        ...rest,
        status: 'running',
        input: summary(input),
        startedAt: new Date(now()).toISOString(),
      })
    },
    finish(id: string, result: { output?: unknown; error?: unknown }) {
      const item = items.get(id)
      if (!item) return
      const failed = result.error !== undefined && result.error !== null
      put(id, {
        ...item.data,
        status: failed ? 'failed' : 'completed',
        ...(result.output !== undefined && { output: summary(result.output) }),
        ...(failed && { error: summary(errorText(result.error)) }),
        durationMs: now() - item.started,
      })
    },
    /** Tool hooks for one agent: each call becomes a `tool` item of that agent. */
    toolHooks(agent: { id: string; name: string }): ToolHooks {
      // Mastra hands both hooks of one call the same execution context object: pair on it, so
      // parallel calls of one tool finishing out of order keep their own results. The name queue
      // is the fallback for a call that has no context.
      const byCall = new WeakMap<object, string>()
      const open = new Map<string, string[]>()
      // Delegations (`agent-*` tools) are reported by the delegation hooks, with the specialist.
      const delegation = (toolName: string) => toolName.startsWith('agent-')
      return {
        beforeToolCall: ({ toolName, input, context }) => {
          if (delegation(toolName)) return
          const id = `act_${agent.id}_${++counter}`
          if (context && typeof context === 'object') byCall.set(context, id)
          else open.set(toolName, [...(open.get(toolName) ?? []), id])
          this.start(id, {
            kind: 'tool',
            agentId: agent.id,
            agentName: agent.name,
            tool: toolName,
            input,
          })
        },
        afterToolCall: ({ toolName, output, error, context }) => {
          if (delegation(toolName)) return
          const id =
            context && typeof context === 'object'
              ? byCall.get(context)
              : (open.get(toolName) ?? []).shift()
          if (id) this.finish(id, { output, error })
        },
      }
    },
    /** The final state of every item, in the order they first appeared. */
    parts(): ActivityPart[] {
      return [...items].map(([id, { data }]) => ({ type: ACTIVITY_PART, id, data }))
    },
  }
}

export type ActivityLog = ReturnType<typeof createActivityLog>

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message
  return typeof error === 'string' ? error : safeJson(error)
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}
