import type { Db } from '../../db/index.ts'
import type { Logger } from '../log.ts'
import { ABORT_CLASSES, attemptIds, type Abort, type Attempt } from './attempt.ts'
import type { CurrentTiming } from './current-timing.ts'
import { classifyError, errorShape } from './error-classes.ts'
import type { Lifecycle } from './lifecycle.ts'
import type { AttemptContext, TaskExecutor } from './runner.ts'
import type { Settled } from './sql/finish.ts'
import { appendActivity } from './transcript.ts'

/**
 * Runs an attempt's executor under the task timeout and answers how it settled, ready to be
 * written: redacted, an aborted attempt classed by the runner's reason, any other failure by the
 * classifier. Its transcript records are all written before the answer.
 */
export function createAttemptExecution(deps: {
  db: Db
  log: Logger
  redact: (text: string) => string
  execute: TaskExecutor
  lifecycle: Lifecycle
  timing: CurrentTiming
  abort: Abort
}) {
  const { db, log, redact, lifecycle, timing, abort } = deps
  return async function execute(attempt: Attempt): Promise<Settled> {
    const { task, controller } = attempt
    await lifecycle.emit({ type: 'TaskStart', task, ...attemptIds(task) })
    const timeout = setTimeout(() => abort(attempt, 'timeout'), timing.value.timeoutMs)
    let records = Promise.resolve()
    const context: AttemptContext = {
      signal: controller.signal,
      attempt: task.attemptCount,
      turnId: task.turnId ?? '',
      traceId: task.traceId ?? '',
      record(entry) {
        // Kept in order; a failed write is logged, never fails the attempt.
        records = records.then(() =>
          appendActivity(
            db,
            { taskId: task.id, attempt: task.attemptCount, record: entry },
            redact,
          ).catch((error: unknown) =>
            log.error('task transcript write failed', { taskId: task.id, error }),
          ),
        )
        return records
      },
    }
    let settled: Settled
    try {
      const { result } = await deps.execute(task, context)
      settled = { ok: true, result: redact(result) }
    } catch (error) {
      const found = attempt.reason
        ? { errorClass: ABORT_CLASSES[attempt.reason], signal: `runner ${attempt.reason}` }
        : classifyError(error)
      settled = {
        ok: false,
        errorClass: found.errorClass,
        message: redact(messageOf(error)).slice(0, 4_000),
      }
      // One line per failed attempt (the fault suite counts them by class); an unclassified one
      // carries its shape, so the next library wrapper can be taught to the classifier.
      log.warn('task attempt failed', {
        taskId: task.id,
        attempt: task.attemptCount,
        errorClass: found.errorClass,
        signal: found.signal,
      })
      if (found.errorClass === 'unknown') {
        log.warn('unclassified task failure', { taskId: task.id, shape: errorShape(error) })
      }
    } finally {
      attempt.settled = true
      clearTimeout(timeout)
      clearTimeout(attempt.ackTimer)
    }
    await records
    return settled
  }
}

// An Error with an empty message still says what it was.
function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name
  return String(error)
}
