import type { Db } from '../../db/index.ts'
import type { TaskRow } from '../../runtime/tasks/index.ts'
import type { Logger } from '../log.ts'
import type { CurrentTiming } from './current-timing.ts'
import type { RunnerState } from './runner-state.ts'
import { createSerialQueue } from './serial-queue.ts'
import { adoptClaims } from './sql/adopt-claims.ts'
import { claim } from './sql/claim.ts'

const ADOPT_MARGIN_MS = 1_000

/**
 * Claims run one at a time (the loop's, and those combined with a batch of completions), so the
 * free slots each one counts are not counted twice, and a claim whose reply was lost can be taken
 * over before the next one.
 */
export function createClaimer(deps: {
  db: Db
  runnerId: string
  log: Logger
  state: RunnerState
  timing: CurrentTiming
  launch: (task: TaskRow) => void
}) {
  const { db, runnerId, log, state, timing, launch } = deps
  const serial = createSerialQueue()
  // When the earliest claim whose reply was lost was sent (undefined: none), and when this
  // runner started: a lost claim's rows were claimed between the two and now.
  let adoptSince: number | undefined
  let startedAt = Date.now()

  /**
   * Runs `work` with the number of slots it may fill (free ones plus `freed`, which the work
   * itself frees), then launches what it claimed.
   */
  function claiming<T extends { claimed: TaskRow[] }>(
    work: (room: number) => Promise<T>,
    freed = 0,
  ): Promise<T> {
    return serial.run(async () => {
      if (adoptSince !== undefined) {
        // A claim commits after it is sent. The window is measured back from the database's
        // now() when this statement runs, which trails this clock by the reconnect after the cut
        // and any scheduling delay: under load that passed 50 ms and lost claims waited a lease
        // and ran as a second attempt (the commit-cut fault). A second of margin is safe: every
        // claim whose reply arrived was launched at once, and an attempt keeps its id in
        // `state.attempts` until its end is written, so nothing of this runner's that is running
        // and not held can be anything but a lost claim. No window reaches back before this
        // runner started (an earlier process with the same runner id).
        const withinMs = Math.min(Date.now() - adoptSince + ADOPT_MARGIN_MS, Date.now() - startedAt)
        const adopted = await adoptClaims(db, runnerId, [...state.attempts.keys()], withinMs)
        adoptSince = undefined
        for (const task of adopted) {
          log.warn('task claim taken over after its reply was lost', { taskId: task.id })
          launch(task)
        }
      }
      const room =
        state.running && !state.stopRequested
          ? timing.value.concurrency - state.attempts.size + freed
          : 0
      const sentAt = Date.now()
      let result: T
      try {
        result = await work(Math.max(0, room))
      } catch (error) {
        // The claim may have committed without this runner hearing of it.
        if (room > 0) adoptSince ??= sentAt
        throw error
      }
      // Launched before the next claim counts the slots.
      for (const task of result.claimed) launch(task)
      return result
    })
  }

  return {
    claiming,
    /** Fills the free slots with due work. */
    claimFreeSlots() {
      return claiming(async (room) => ({
        claimed: room > 0 ? await claim(db, runnerId, room) : [],
        room,
      }))
    },
    /** Settles once the claims queued so far have launched what they claimed. */
    get idle(): Promise<unknown> {
      return serial.idle
    },
    /** Claiming starts now: no lost claim's window reaches back before it. */
    started(): void {
      startedAt = Date.now()
    },
  }
}

export type Claimer = ReturnType<typeof createClaimer>
