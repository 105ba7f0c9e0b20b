import { ACTIVITY_PART, type AgentActivity } from '../../runtime/contracts/chat.ts'
import type { RunEvent } from './run-events.ts'

const SUMMARY_CHARS = 2_000
const BRIEF_ITEM = 'act_repo_brief'
const RECALL_ITEM = 'act_recall'
const GUARD_NAMES = {
  budget: 'budget',
  loop: 'loop breaker',
  delegation: 'delegation limit',
  hook: 'hook',
}

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
  let guards = 0

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
    /**
     * The run's events as activity items: each tool call and delegation one item (the same id
     * from start to end), and the preflight brief one `repo-brief` tool item of the supervisor.
     */
    observe(event: RunEvent) {
      switch (event.type) {
        case 'tool-start':
          return this.start(event.callId, {
            kind: 'tool',
            agentId: event.agentId,
            agentName: event.agentName,
            tool: event.tool,
            input: event.input,
          })
        case 'delegation-start':
          return this.start(event.callId, {
            kind: 'delegation',
            agentId: event.agentId,
            agentName: event.agentName,
            input: event.prompt,
          })
        case 'tool-end':
        case 'delegation-end':
          return this.finish(event.callId, { output: event.output, error: event.error })
        case 'guard': {
          const id = `act_guard_${++guards}`
          this.start(id, {
            kind: 'guard',
            agentId: event.agentId,
            agentName: event.agentName,
            tool: GUARD_NAMES[event.guard],
            input: event.tool,
          })
          return this.finish(id, { error: event.message })
        }
        case 'brief':
          this.start(BRIEF_ITEM, {
            kind: 'tool',
            agentId: event.agentId,
            agentName: event.agentName,
            tool: 'repo-brief',
            input: event.query,
          })
          return this.finish(BRIEF_ITEM, { output: event.text })
        case 'recall':
          this.start(RECALL_ITEM, {
            kind: 'tool',
            agentId: event.agentId,
            agentName: event.agentName,
            tool: 'recall',
            input: event.query,
          })
          return this.finish(RECALL_ITEM, { output: recallSummary(event) })
      }
    },
    /** The final state of every item, in the order they first appeared. */
    parts(): ActivityPart[] {
      return [...items].map(([id, { data }]) => ({ type: ACTIVITY_PART, id, data }))
    },
  }
}

export type ActivityLog = ReturnType<typeof createActivityLog>

/** What recall used, one line per item with its provenance, and why it fell back if it did. */
function recallSummary(event: Extract<RunEvent, { type: 'recall' }>): string {
  return [
    `${event.mode}${event.note ? `: ${event.note}` : ''}; ${event.items.length} item(s)`,
    ...event.items.map((item) => `- [${item.provenance}] ${item.text}`),
  ].join('\n')
}

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
