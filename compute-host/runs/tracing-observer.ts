import type { Span, Tracer } from '../observability/tracer.ts'
import type { RunObserver } from './run-events.ts'

/**
 * Turns run events into spans: one root span per run (in the trace the run already reports) and
 * a child per tool call, delegation and the preflight brief. Only names, ids and outcomes go on
 * spans here; payloads are the observability work's to add, redacted and bounded.
 */
export function tracingObserver(tracer: Tracer): RunObserver {
  const runs = new Map<string, { root: Span; calls: Map<string, Span> }>()
  return (event) => {
    const id = event.run.runId
    const open = runs.get(id)
    switch (event.type) {
      case 'run-start': {
        const root = tracer.startSpan(`${event.run.kind}.run`, {
          traceId: event.run.traceId,
          runId: id,
          model: event.model,
          workspaceId: event.run.workspaceId,
          sessionId: event.run.sessionId,
          taskId: event.run.taskId,
          attempt: event.run.attempt,
        })
        runs.set(id, { root, calls: new Map() })
        return
      }
      case 'brief':
        return open?.root.child('repo-brief', { agentId: event.agentId }).end('ok')
      case 'tool-start':
        open?.calls.set(
          event.callId,
          open.root.child(`tool.${event.tool}`, { agentId: event.agentId }),
        )
        return
      case 'delegation-start':
        open?.calls.set(event.callId, open.root.child('delegation', { agentId: event.agentId }))
        return
      case 'tool-end':
      case 'delegation-end': {
        const failed = event.error !== undefined && event.error !== null
        open?.calls.get(event.callId)?.end(failed ? 'error' : 'ok')
        open?.calls.delete(event.callId)
        return
      }
      case 'run-end': {
        if (!open) return
        // Calls the run never finished (an abort mid-tool) end with it.
        for (const span of open.calls.values()) span.end('aborted')
        open.root.end(
          event.status === 'completed' ? 'ok' : event.status === 'failed' ? 'error' : 'aborted',
        )
        runs.delete(id)
        return
      }
    }
  }
}
