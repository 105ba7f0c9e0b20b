import type { TaskRow } from '../../runtime/tasks/index.ts'
import type { Logger } from '../log.ts'
import type { ErrorClass } from './failure-policy.ts'

/**
 * What observers (channels, hooks, browser close, evolution: later issues) hear about a task.
 * Every event is delivered after the transition it reports is committed, and carries the
 * attempt's turn and trace ids. `TaskStop` closes every `TaskStart`: an attempt that will be
 * retried stops as `failed` with `willRetry`. `dead-letter` is kept for observers of rows written
 * before transient failures waited (failure-policy.ts); the runner no longer produces it.
 * `interrupted` means an executor did not stop when asked: it keeps its slot and its row stays
 * non-runnable until it settles.
 */
export type TaskLifecycleEvent =
  | { type: 'TaskStart'; task: TaskRow; attempt: number; turnId: string; traceId: string }
  | {
      type: 'TaskStop'
      task: TaskRow
      attempt: number
      turnId: string
      traceId: string
      outcome: 'completed' | 'failed' | 'cancelled' | 'dead-letter'
      /** A failed attempt that is queued again: a later TaskStart follows. */
      willRetry: boolean
      result?: string
      error?: { class: ErrorClass; message: string }
    }
  | { type: 'dead-letter'; task: TaskRow; attempt: number; turnId: string; traceId: string }
  | {
      type: 'interrupted'
      task: TaskRow
      attempt: number
      turnId: string
      traceId: string
      reason: string
    }

export type TaskObserver = (event: TaskLifecycleEvent) => void | Promise<void>

/** Delivers to every observer; a failing observer is logged and changes nothing else. */
export function createLifecycle(log: Logger, observers: TaskObserver[] = []) {
  return {
    observers,
    async emit(event: TaskLifecycleEvent): Promise<void> {
      for (const observe of observers) {
        try {
          await observe(event)
        } catch (error) {
          log.error('task observer failed', { event: event.type, taskId: event.task.id, error })
        }
      }
    },
  }
}
export type Lifecycle = ReturnType<typeof createLifecycle>
