import { setTimeout as sleep } from 'node:timers/promises'
import type { Db } from '../../db/index.ts'
import type { TaskRow } from '../../runtime/tasks/index.ts'
import type { Logger } from '../log.ts'
import { attemptIds } from './attempt.ts'
import type { CompleteBatched } from './completion-batch.ts'
import type { Backoff } from './failure-policy.ts'
import type { Lifecycle } from './lifecycle.ts'
import type { RunnerState } from './runner-state.ts'
import { finish, type Settled } from './sql/finish.ts'

const RETRY_WAKE_MARGIN_MS = 5

/**
 * Ends a settled attempt: writes its end (a success in the next completion batch, anything else,
 * or a batch that failed, on its own), then tells the observers. The attempt keeps its slot until
 * this has finished, retrying while the database is away.
 */
export function createAttemptEnd(deps: {
  db: Db
  log: Logger
  backoff: Backoff
  state: RunnerState
  completeBatched: CompleteBatched
  lifecycle: Lifecycle
  wake: () => void
}) {
  const { db, log, backoff, state, completeBatched, lifecycle, wake } = deps

  /** Writes the end of an attempt, retrying while the database is away; the slot stays held. */
  async function finishDurably(task: TaskRow, settled: Settled): Promise<TaskRow | null> {
    if (settled.ok) {
      const row = await completeBatched(task, settled.result)
      if (row !== undefined) return row
    }
    for (let delay = 100; ; delay = Math.min(delay * 2, 2_000)) {
      try {
        return await finish(db, task, settled, backoff)
      } catch (error) {
        state.databaseLostAt = Date.now()
        log.error('cannot record the end of a task attempt; retrying', { taskId: task.id, error })
        await sleep(delay)
      }
    }
  }

  async function announce(row: TaskRow, task: TaskRow, settled: Settled) {
    // A retry waits out its backoff; look for it then rather than at the next poll. A few
    // milliseconds past it: the row's time has microseconds that a JavaScript date drops, so a
    // wake-up at the truncated millisecond could find the retry not yet due and leave it to the
    // poll (a PGlite test waited out a 60 s poll one run in five).
    if (row.state === 'queued') {
      const dueInMs = row.nextAttemptAt.getTime() - Date.now() + RETRY_WAKE_MARGIN_MS
      setTimeout(wake, Math.max(0, dueInMs)).unref?.()
    }
    const willRetry = row.state === 'queued'
    const outcome = willRetry
      ? 'failed'
      : (row.state as 'completed' | 'failed' | 'cancelled' | 'dead-letter')
    await lifecycle.emit({
      type: 'TaskStop',
      task: row,
      ...attemptIds(task),
      outcome,
      willRetry,
      ...(settled.ok
        ? { result: settled.result }
        : { error: { class: settled.errorClass, message: settled.message } }),
    })
    if (row.state === 'dead-letter')
      await lifecycle.emit({ type: 'dead-letter', task: row, ...attemptIds(task) })
  }

  return async function end(task: TaskRow, settled: Settled): Promise<void> {
    const row = await finishDurably(task, settled)
    if (!row) {
      log.warn('task claim lost before its attempt ended; nothing written', { taskId: task.id })
      return
    }
    await announce(row, task, settled)
  }
}
