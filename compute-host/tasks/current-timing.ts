import type { RunnerTiming } from './runner.ts'

const TIMING_REFRESH_MS = 1_000

/** The runner's timing, read on start and refreshed as the claim loop goes round. */
export function createCurrentTiming(read: () => Promise<RunnerTiming>) {
  let timing: RunnerTiming | undefined
  let readAt = 0
  return {
    async refresh(): Promise<void> {
      // Settings changes apply within a second; the queue does not pay a read per claim.
      if (timing && Date.now() - readAt < TIMING_REFRESH_MS) return
      try {
        timing = await read()
        readAt = Date.now()
      } catch (error) {
        // Keep the last known timing; the database error surfaces in the claim as well.
        if (!timing) throw error
      }
    },
    /** The last timing read; a start reads one before anything else runs. */
    get value(): RunnerTiming {
      if (!timing) throw new Error('the task runner used its timing before a start read it')
      return timing
    },
  }
}

export type CurrentTiming = ReturnType<typeof createCurrentTiming>
