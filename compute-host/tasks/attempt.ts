import type { TaskRow } from '../../runtime/tasks/index.ts'
import type { Logger } from '../log.ts'
import type { CurrentTiming } from './current-timing.ts'
import { TaskFailure } from './failure-policy.ts'
import type { Lifecycle } from './lifecycle.ts'

/** Why the runner asked an executor to stop. */
export type AbortReason = 'cancelled' | 'timeout' | 'shutdown'

/** The error class an aborted attempt ends with. */
export const ABORT_CLASSES = {
  cancelled: 'cancelled',
  timeout: 'timeout',
  shutdown: 'interrupted',
} as const

/** One claimed attempt, holding its slot until its executor has settled and its end is written. */
export type Attempt = {
  task: TaskRow
  controller: AbortController
  reason?: AbortReason
  settled: boolean
  done: Promise<void>
  ackTimer?: ReturnType<typeof setTimeout>
}

/** The ids every lifecycle event of an attempt carries. */
export const attemptIds = (task: TaskRow) => ({
  attempt: task.attemptCount,
  turnId: task.turnId ?? '',
  traceId: task.traceId ?? '',
})

/**
 * Asks an attempt's executor to stop; the first reason is the one it ends with. An executor that
 * has not settled within `abortAckMs` is reported `interrupted` to observers, and keeps its slot
 * and its row (`running` or `cancelling`), which the heartbeat keeps renewing, so no recovery
 * anywhere can start it a second time.
 */
export function createAbort(deps: { log: Logger; lifecycle: Lifecycle; timing: CurrentTiming }) {
  const { log, lifecycle, timing } = deps
  return function abort(attempt: Attempt, reason: AbortReason): void {
    if (attempt.reason || attempt.settled) return
    attempt.reason = reason
    attempt.controller.abort(
      new TaskFailure(
        ABORT_CLASSES[reason],
        `the task was ${reason === 'cancelled' ? 'cancelled' : reason === 'timeout' ? 'timed out' : 'stopped by a shutdown'}`,
      ),
    )
    attempt.ackTimer = setTimeout(() => {
      if (attempt.settled) return
      log.warn('task executor ignored abort; its slot stays held', {
        taskId: attempt.task.id,
        reason,
      })
      void lifecycle.emit({
        type: 'interrupted',
        task: attempt.task,
        ...attemptIds(attempt.task),
        reason: `${reason}: the executor did not stop within ${timing.value.abortAckMs} ms`,
      })
    }, timing.value.abortAckMs)
  }
}

export type Abort = ReturnType<typeof createAbort>
