import type { TaskObserver } from '../tasks/lifecycle.ts'
import type { HookDispatcher } from './dispatcher.ts'

/**
 * TaskStop hooks as a task observer: they hear every attempt's end after it is committed, with
 * its outcome; they cannot change it, and a failing one is recorded in its audit row only.
 */
export function taskStopHooks(hooks: HookDispatcher): TaskObserver {
  return (event) => {
    if (event.type !== 'TaskStop') return
    void hooks
      .dispatch({
        event: 'TaskStop',
        scope: {
          taskId: event.task.id,
          runId: event.turnId,
          workspaceId: event.task.workspaceId,
          ...(event.task.sessionId && { sessionId: event.task.sessionId }),
        },
        data: {
          attempt: event.attempt,
          outcome: event.outcome,
          willRetry: event.willRetry,
          ...(event.error && { error: event.error }),
        },
      })
      .catch(() => {})
  }
}
