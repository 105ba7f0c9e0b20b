import type { Span, SpanAttributes, Tracer } from '../observability/tracer.ts'
import type { RunEvent, RunObserver, TokenUsage } from './run-events.ts'

type OpenRun = {
  root: Span
  model: string
  /** When the run started its agents: the supervisor's first step began then. */
  startedAt: number
  calls: Map<string, Span>
  /** Each specialist's open delegations, newest last: its tool calls nest in the newest. */
  delegations: Map<string, Span[]>
  /** When each agent last finished something (a step, a tool call): its next step began then. */
  lastActive: Map<string, number>
}

/**
 * Turns run events into one trace per run: the root span (in the trace the run already reports),
 * under it a span per supervisor model step, per tool call and per delegation, and a specialist's
 * tool calls inside its delegation. Payloads travel raw to the tracer, which bounds and redacts
 * them. Model steps and delegations carry their token usage, which the tracer records per agent.
 */
export function tracingObserver(tracer: Tracer): RunObserver {
  const runs = new Map<string, OpenRun>()
  const parentOf = (open: OpenRun, agentId: string) =>
    open.delegations.get(agentId)?.at(-1) ?? open.root
  const agent = (e: { agentId: string; agentName: string }) => ({
    agentId: e.agentId,
    agentName: e.agentName,
  })
  return (event) => {
    const id = event.run.runId
    const open = runs.get(id)
    if (event.type === 'run-start') return void runs.set(id, start(tracer, event))
    if (!open) return
    switch (event.type) {
      case 'brief':
        return open.root
          .child('repo-brief', agent(event), {
            input: event.query,
            startedAt: Date.now() - event.durationMs,
          })
          .end('ok', {}, { output: event.text })
      case 'step': {
        const now = Date.now()
        open.root
          .child(
            `model.step ${event.step}`,
            { ...agent(event), model: open.model, step: event.step },
            { kind: 'model', startedAt: open.lastActive.get(event.agentId) ?? open.startedAt },
          )
          .end(
            'ok',
            { finishReason: event.finishReason ?? undefined, ...tokens(event.usage) },
            { output: { text: event.text, toolCalls: event.toolCalls } },
          )
        open.lastActive.set(event.agentId, now)
        return
      }
      case 'tool-start':
        open.calls.set(
          event.callId,
          parentOf(open, event.agentId).child(
            `tool ${event.tool}`,
            { ...agent(event), tool: event.tool },
            { kind: 'tool', input: event.input },
          ),
        )
        return
      case 'delegation-start': {
        const span = open.root.child(`agent ${event.agentName}`, agent(event), {
          kind: 'agent',
          input: event.prompt,
        })
        open.calls.set(event.callId, span)
        open.delegations.set(event.agentId, [...(open.delegations.get(event.agentId) ?? []), span])
        return
      }
      case 'tool-end':
      case 'delegation-end': {
        const span = open.calls.get(event.callId)
        open.calls.delete(event.callId)
        open.lastActive.set(event.agentId, Date.now())
        if (!span) return
        const failed = event.error !== undefined && event.error !== null
        const spent: SpanAttributes =
          event.type === 'delegation-end' ? { model: event.model, ...tokens(event.usage) } : {}
        span.end(failed ? 'error' : 'ok', spent, { output: event.output, error: event.error })
        if (event.type === 'delegation-end') {
          const stack = open.delegations.get(event.agentId) ?? []
          open.delegations.set(
            event.agentId,
            stack.filter((s) => s !== span),
          )
        }
        return
      }
      case 'guard':
        return parentOf(open, event.agentId)
          .child(`guard ${event.guard}`, { ...agent(event), tool: event.tool })
          .end('error', {}, { error: event.message })
      case 'run-end': {
        // Calls the run never finished (an abort mid-tool) end with it.
        for (const span of open.calls.values()) span.end('aborted')
        const status =
          event.status === 'completed' ? 'ok' : event.status === 'failed' ? 'error' : 'aborted'
        open.root.end(status, {}, { error: event.error })
        runs.delete(id)
        return
      }
    }
  }
}

function start(tracer: Tracer, event: Extract<RunEvent, { type: 'run-start' }>): OpenRun {
  const { run } = event
  const root = tracer.startSpan(
    run.kind === 'chat' ? 'turn' : 'task',
    {
      traceId: run.traceId,
      runId: run.runId,
      kind: run.kind,
      model: event.model,
      workspaceId: run.workspaceId,
      sessionId: run.sessionId,
      taskId: run.taskId,
      attempt: run.attempt,
      requestId: run.requestId,
    },
    { kind: 'run', startedAt: event.preparation.startedAt },
  )
  return {
    root,
    model: event.model,
    startedAt: Date.now(),
    calls: new Map(),
    delegations: new Map(),
    lastActive: new Map(),
  }
}

function tokens(usage: TokenUsage | undefined): SpanAttributes {
  return {
    inputTokens: usage?.inputTokens,
    outputTokens: usage?.outputTokens,
    cachedInputTokens: usage?.cachedInputTokens,
  }
}
