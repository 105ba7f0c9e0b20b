import type { Attempt } from './attempt.ts'

/**
 * What the runner's pieces share. Everything else a piece needs is passed to its factory, and
 * whatever else it keeps is its own.
 */
export type RunnerState = {
  /** Attempts holding a slot, by task id (executors that ignored abort included). */
  readonly attempts: Map<string, Attempt>
  /** Claiming is on: from the end of a start's recovery until a stop begins. */
  running: boolean
  /** A stop was asked for: the loop ends, waits end at once, and no claim counts free slots. */
  stopRequested: boolean
  /** When a database call last failed: recovering others' claims waits a lease after it. */
  databaseLostAt: number
}

export function createRunnerState(): RunnerState {
  return { attempts: new Map(), running: false, stopRequested: false, databaseLostAt: Date.now() }
}
