import { randomUUID } from 'node:crypto'
import { toStorable } from '../../runtime/contracts/storable-text.ts'
import type { TaskRow } from '../../runtime/tasks/index.ts'
import type { DatabaseHandle } from '../database/handle.ts'
import type { Logger } from '../log.ts'
import { createAbort } from './attempt.ts'
import { createAttemptEnd } from './attempt-end.ts'
import { createAttemptExecution } from './attempt-execution.ts'
import { createClaimLoop } from './claim-loop.ts'
import { createClaimer } from './claimer.ts'
import { createCompletionBatch } from './completion-batch.ts'
import { createCurrentTiming } from './current-timing.ts'
import { DEFAULT_BACKOFF, type Backoff } from './failure-policy.ts'
import { createHeartbeat } from './heartbeat.ts'
import { createLauncher } from './launcher.ts'
import { createLifecycle, type TaskObserver } from './lifecycle.ts'
import { createRecovery } from './recovery.ts'
import { createRunnerState } from './runner-state.ts'
import { createStartStop } from './start-stop.ts'
import { createWakeSignal } from './wake-signal.ts'

/** What an executor gets for one attempt. */
export type AttemptContext = {
  signal: AbortSignal
  attempt: number
  turnId: string
  traceId: string
  /** Appends an iteration record to the task's transcript (redacted, newest 256 kept). */
  record(entry: Record<string, unknown>): Promise<void>
}

/** Runs one attempt of a task; resolves with the final answer, throws to fail the attempt. */
export type TaskExecutor = (task: TaskRow, context: AttemptContext) => Promise<{ result: string }>

export type RunnerTiming = {
  concurrency: number
  pollIntervalMs: number
  timeoutMs: number
  /** How long an aborted executor gets to settle before it is reported `interrupted`. */
  abortAckMs: number
  /** Interrupted attempts claimed longer ago than this fail instead of being replayed. */
  staleAfterMs: number
}

export type RunnerOptions = {
  handle: Pick<DatabaseHandle, 'db' | 'listen'>
  execute: TaskExecutor
  /** Read on start and on every poll, so settings changes apply without a restart. */
  timing: () => Promise<RunnerTiming>
  log: Logger
  redact: (text: string) => string
  observers?: TaskObserver[]
  runnerId?: string
  /** A claim whose heartbeat is older than this is abandoned (its runner is gone). */
  leaseMs?: number
  backoff?: Backoff
}

/**
 * The background task runner (T2–T5). It claims due work with FOR UPDATE SKIP LOCKED, keeps each
 * attempt's executor promise, and ends attempts with fenced writes, so several runners (one per
 * compute host) share one queue and a task never runs twice at once.
 *
 * Its pieces share one `RunnerState` (runner-state.ts): the wake signal and its LISTEN
 * (wake-signal.ts), the claim loop (claim-loop.ts) and the claimer it goes through
 * (claimer.ts), recovery of abandoned claims (recovery.ts), one attempt from launch to its written
 * end (launcher.ts, attempt.ts, attempt-execution.ts, completion-batch.ts, attempt-end.ts), the
 * lease heartbeat (heartbeat.ts) and the serialised start and stop (start-stop.ts). Its
 * statements are under sql/.
 */
export function createTaskRunner(options: RunnerOptions) {
  const { handle, log } = options
  // Everything the runner saves passes the redactor, then loses what PostgreSQL cannot store.
  const redact = (text: string) => toStorable(options.redact(text))
  const db = handle.db
  const runnerId = options.runnerId ?? `runner-${randomUUID()}`
  const leaseMs = options.leaseMs ?? 30_000
  const lifecycle = createLifecycle(log, options.observers)
  const state = createRunnerState()
  const timing = createCurrentTiming(options.timing)
  const wake = createWakeSignal(() => state.stopRequested)
  const abort = createAbort({ log, lifecycle, timing })
  const heartbeat = createHeartbeat({ db, runnerId, log, leaseMs, state, abort })
  const claimer = createClaimer({
    db,
    runnerId,
    log,
    state,
    timing,
    // Bound late: the claimer launches attempts, and an attempt's end claims through the claimer.
    launch: (task) => launch(task),
  })
  const launch = createLauncher({
    state,
    execute: createAttemptExecution({
      db,
      log,
      redact,
      execute: options.execute,
      lifecycle,
      timing,
      abort,
    }),
    end: createAttemptEnd({
      db,
      log,
      backoff: options.backoff ?? DEFAULT_BACKOFF,
      state,
      completeBatched: createCompletionBatch({ db, runnerId, log, state, claimer }),
      lifecycle,
      wake: wake.kick,
    }),
    heartbeat,
    wake: wake.kick,
  })
  const recover = createRecovery({ db, log, leaseMs, state, timing, lifecycle, wake: wake.kick })
  const { start, stop } = createStartStop({
    handle,
    state,
    timing,
    wake,
    cancel(taskId) {
      const attempt = state.attempts.get(taskId)
      if (attempt) abort(attempt, 'cancelled')
    },
    heartbeat,
    recover,
    runLoop: createClaimLoop({ log, leaseMs, state, timing, wake, recover, claimer }),
    claimer,
    abort,
  })

  return {
    runnerId,
    /** Attempts holding a slot (executors that ignore abort included). */
    get active(): number {
      return state.attempts.size
    },
    start,
    stop,
    /** Looks for due work now (tests and callers that just enqueued in-process). */
    wake: wake.kick,
  }
}

export type TaskRunner = ReturnType<typeof createTaskRunner>
