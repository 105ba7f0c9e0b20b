import type { Logger } from '../log.ts'
import type { TaskObserver } from '../tasks/lifecycle.ts'
import type { RunObserver, RunRef } from './run-events.ts'

/**
 * Production observers that write the run and task lifecycle to the host log, each line carrying
 * the ids that join it to the session, task and trace. Tool calls go at debug level: they are in
 * the activity and transcripts already. Payloads are never logged here.
 */
export function runLogObserver(log: Logger): RunObserver {
  const started = new Map<string, number>()
  return (event) => {
    const ids = idsOf(event.run)
    switch (event.type) {
      case 'run-start':
        started.set(event.run.runId, Date.now())
        return log.info('run started', { ...ids, model: event.model })
      case 'tool-end':
        return log.debug('tool call ended', {
          ...ids,
          agentId: event.agentId,
          tool: event.tool,
          failed: event.error !== undefined && event.error !== null,
        })
      case 'run-end': {
        const since = started.get(event.run.runId)
        started.delete(event.run.runId)
        return log.info('run ended', {
          ...ids,
          status: event.status,
          ...(since !== undefined && { durationMs: Date.now() - since }),
          ...(event.error !== undefined && { error: event.error }),
        })
      }
    }
  }
}

export function taskLogObserver(log: Logger): TaskObserver {
  return (event) => {
    const ids = {
      taskId: event.task.id,
      attempt: event.attempt,
      turnId: event.turnId,
      traceId: event.traceId,
    }
    switch (event.type) {
      case 'TaskStart':
        return log.info('task started', ids)
      case 'TaskStop':
        return log.info('task stopped', {
          ...ids,
          outcome: event.outcome,
          willRetry: event.willRetry,
          ...(event.error && { errorClass: event.error.class }),
        })
      case 'interrupted':
        return log.warn('task attempt did not stop when asked', { ...ids, reason: event.reason })
      case 'dead-letter':
        return log.warn('task dead-lettered', ids)
    }
  }
}

function idsOf(run: RunRef) {
  return {
    runKind: run.kind,
    runId: run.runId,
    traceId: run.traceId,
    workspaceId: run.workspaceId,
    ...(run.sessionId && { sessionId: run.sessionId }),
    ...(run.taskId && { taskId: run.taskId, attempt: run.attempt }),
    ...(run.requestId && { requestId: run.requestId }),
  }
}
