import type { Db } from '../../db/index.ts'
import type { TaskRow } from '../../runtime/tasks/index.ts'
import type { Logger } from '../log.ts'
import type { Claimer } from './claimer.ts'
import type { RunnerState } from './runner-state.ts'
import { completeAndClaim } from './sql/complete-and-claim.ts'

type Pending = { task: TaskRow; result: string; done: (row: TaskRow | null | undefined) => void }

/**
 * Successful attempts that end in the same turn of the event loop are recorded together, in the
 * statement that claims the work for the slots they free. `complete` answers the written row, null
 * when the claim was lost, and undefined when the batch could not be written: the caller then
 * writes the attempt's end on its own, retrying until it lands.
 */
export function createCompletionBatch(deps: {
  db: Db
  runnerId: string
  log: Logger
  state: RunnerState
  claimer: Claimer
}) {
  const { db, runnerId, log, state, claimer } = deps
  let pending: Pending[] = []

  async function flush() {
    const batch = pending
    pending = []
    try {
      // The batch's attempts still hold their slots; their ends are written by this statement.
      const { completed } = await claimer.claiming(
        (room) => completeAndClaim(db, batch, runnerId, room),
        batch.length,
      )
      const byId = new Map(completed.map((r) => [r.id, r]))
      for (const entry of batch) entry.done(byId.get(entry.task.id) ?? null)
    } catch (error) {
      state.databaseLostAt = Date.now()
      log.error('cannot record completed task attempts; retrying one by one', { error })
      // Undefined sends each attempt to the one-by-one path, which retries until it lands.
      for (const entry of batch) entry.done(undefined)
    }
  }

  return function complete(task: TaskRow, result: string): Promise<TaskRow | null | undefined> {
    return new Promise((done) => {
      if (pending.length === 0) setImmediate(flush)
      pending.push({ task, result, done })
    })
  }
}

export type CompleteBatched = ReturnType<typeof createCompletionBatch>
