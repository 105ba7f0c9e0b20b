import { toStorable } from '../../runtime/contracts/storable-text.ts'
import { randomUUID } from 'node:crypto'
import type { Db } from '../../db/index.ts'
import { TASK_CANCEL_CHANNEL, TASK_WAKE_CHANNEL } from '../../runtime/tasks/notify-topics.ts'
import type { TaskRow } from '../../runtime/tasks/index.ts'
import type { DatabaseHandle } from '../database/handle.ts'
import type { Logger } from '../log.ts'
import { classifyError, errorShape } from './error-classes.ts'
import { DEFAULT_BACKOFF, TaskFailure, type Backoff } from './failure-policy.ts'
import { createLifecycle, type TaskObserver } from './lifecycle.ts'
import {
  adoptClaims,
  claim,
  completeAndClaim,
  finish,
  heartbeat,
  recoverAbandoned,
  type Settled,
} from './queue.ts'
import { appendActivity } from './transcript.ts'

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

type AbortReason = 'cancelled' | 'timeout' | 'shutdown'

type Attempt = {
  task: TaskRow
  controller: AbortController
  reason?: AbortReason
  settled: boolean
  done: Promise<void>
  ackTimer?: ReturnType<typeof setTimeout>
}

const TIMING_REFRESH_MS = 1_000

const ABORT_CLASSES = {
  cancelled: 'cancelled',
  timeout: 'timeout',
  shutdown: 'interrupted',
} as const

/**
 * The background task runner (T2–T5). It claims due work with FOR UPDATE SKIP LOCKED, keeps each
 * attempt's executor promise, and ends attempts with fenced writes, so several runners (one per
 * compute host) share one queue and a task never runs twice at once.
 *
 * - Wake-ups: LISTEN on the wake channel, subscribed before the first look for work; a wake-up
 *   that arrives while a claim is in flight sets a flag that the wait checks first, so none is
 *   lost. Polling at `pollIntervalMs` is the fallback (and rediscovers delayed retries).
 * - Slots: an attempt holds its slot until its executor has settled and its end is written. An
 *   executor that ignores abort keeps the slot and its row (`running` or `cancelling`), which
 *   this runner keeps heartbeating, so no recovery anywhere can start it a second time.
 * - Leases: a heartbeat renews every claim; a claim not renewed for `leaseMs` is abandoned and
 *   any runner recovers it. After losing the database a runner waits a full lease before
 *   recovering others' claims, giving their owners time to renew.
 * - Start and stop are serialised. A stop requested during start lets that start's one recovery
 *   pass finish, then nothing more runs.
 */
export function createTaskRunner(options: RunnerOptions) {
  const { handle, log } = options
  // Everything the runner saves passes the redactor, then loses what PostgreSQL cannot store.
  const redact = (text: string) => toStorable(options.redact(text))
  const db: Db = handle.db
  const runnerId = options.runnerId ?? `runner-${randomUUID()}`
  const leaseMs = options.leaseMs ?? 30_000
  const backoff = options.backoff ?? DEFAULT_BACKOFF
  const lifecycle = createLifecycle(log, options.observers)
  const attempts = new Map<string, Attempt>()

  let serial: Promise<unknown> = Promise.resolve()
  let running = false
  let stopRequested = false
  let loop: Promise<void> | undefined
  let unlisten: Array<() => Promise<void>> = []
  let heartbeatTimer: ReturnType<typeof setInterval> | undefined
  let timing: RunnerTiming
  let databaseLostAt = Date.now()
  let wakePending = false
  let wakeWaiter: (() => void) | undefined

  function kick() {
    wakePending = true
    wakeWaiter?.()
  }

  function waitForWake(ms: number): Promise<void> {
    if (wakePending || stopRequested) return Promise.resolve()
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms)
      function done() {
        clearTimeout(timer)
        wakeWaiter = undefined
        resolve()
      }
      wakeWaiter = done
    })
  }

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

  let timingReadAt = 0
  async function refreshTiming() {
    // Settings changes apply within a second; the queue does not pay a read per claim.
    if (timing && Date.now() - timingReadAt < TIMING_REFRESH_MS) return
    try {
      timing = await options.timing()
      timingReadAt = Date.now()
    } catch (error) {
      // Keep the last known timing; the database error surfaces in the claim as well.
      if (!timing) throw error
    }
  }

  async function recover(): Promise<void> {
    const recovered = await recoverAbandoned(db, {
      leaseMs,
      staleAfterMs: timing.staleAfterMs,
      exclude: [...attempts.keys()],
    })
    for (const task of recovered) {
      log.warn('task recovered', { taskId: task.id, state: task.state, attempt: task.attemptCount })
      if (task.state === 'dead-letter') {
        await lifecycle.emit({ type: 'dead-letter', task, ...ids(task) })
      }
    }
    if (recovered.some((t) => t.state === 'queued')) kick()
  }

  const ids = (task: TaskRow) => ({
    attempt: task.attemptCount,
    turnId: task.turnId ?? '',
    traceId: task.traceId ?? '',
  })

  async function runLoop(): Promise<void> {
    let lastRecovery = Date.now()
    while (!stopRequested) {
      wakePending = false
      try {
        await refreshTiming()
        if (
          Date.now() - lastRecovery >= timing.pollIntervalMs &&
          Date.now() - databaseLostAt > leaseMs
        ) {
          lastRecovery = Date.now()
          await recover()
        }
        if (timing.concurrency - attempts.size > 0 && !stopRequested) {
          const { claimed, room } = await claiming(async (room) => ({
            claimed: room > 0 ? await claim(db, runnerId, room) : [],
            room,
          }))
          if (room > 0 && claimed.length === room) continue
        }
      } catch (error) {
        databaseLostAt = Date.now()
        log.error('task runner cannot reach the database; retrying', { error })
        await sleep(Math.min(1_000, timing?.pollIntervalMs ?? 1_000))
        continue
      }
      await waitForWake(timing.pollIntervalMs)
    }
  }

  // Claims run one at a time (the loop's, and those combined with a batch of completions), so
  // the free slots each one counts are not counted twice, and a claim whose reply was lost can
  // be taken over before the next one.
  let claimQueue: Promise<unknown> = Promise.resolve()
  // When the earliest claim whose reply was lost was sent (undefined: none), and when this
  // runner started: a lost claim's rows were claimed between the two and now.
  let adoptSince: number | undefined
  let startedAt = Date.now()
  function claiming<T extends { claimed: TaskRow[] }>(
    work: (room: number) => Promise<T>,
    freed = 0,
  ): Promise<T> {
    const step = claimQueue.then(async () => {
      if (adoptSince !== undefined) {
        // A claim commits after it is sent; the margin covers timer granularity only, and no
        // window reaches back before this runner started.
        const withinMs = Math.min(Date.now() - adoptSince + 50, Date.now() - startedAt)
        const adopted = await adoptClaims(db, runnerId, [...attempts.keys()], withinMs)
        adoptSince = undefined
        for (const task of adopted) {
          log.warn('task claim taken over after its reply was lost', { taskId: task.id })
          launch(task)
        }
      }
      const room = running && !stopRequested ? timing.concurrency - attempts.size + freed : 0
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
    claimQueue = step.catch(() => undefined)
    return step
  }

  function launch(task: TaskRow) {
    const controller = new AbortController()
    const attempt: Attempt = { task, controller, settled: false, done: Promise.resolve() }
    attempts.set(task.id, attempt)
    attempt.done = runAttempt(attempt).finally(() => {
      // A claim taken again after a lost one may have started a newer attempt under this id.
      if (attempts.get(task.id) === attempt) attempts.delete(task.id)
      // The last straggler of a stopped runner takes the heartbeat with it.
      if (!running && attempts.size === 0 && heartbeatTimer) {
        clearInterval(heartbeatTimer)
        heartbeatTimer = undefined
      }
      kick()
    })
  }

  function abort(attempt: Attempt, reason: AbortReason) {
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
        ...ids(attempt.task),
        reason: `${reason}: the executor did not stop within ${timing.abortAckMs} ms`,
      })
    }, timing.abortAckMs)
  }

  async function runAttempt(attempt: Attempt): Promise<void> {
    const { task, controller } = attempt
    await lifecycle.emit({ type: 'TaskStart', task, ...ids(task) })
    const timeout = setTimeout(() => abort(attempt, 'timeout'), timing.timeoutMs)
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
      const { result } = await options.execute(task, context)
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
    const row = await finishDurably(task, settled)
    if (!row) {
      log.warn('task claim lost before its attempt ended; nothing written', { taskId: task.id })
      return
    }
    await announce(row, task, settled)
  }

  // Successful attempts that end in the same turn of the event loop are recorded together, in the
  // statement that claims the work for the slots they free.
  let completions: Array<{
    task: TaskRow
    result: string
    done: (row: TaskRow | null | undefined) => void
  }> = []
  function completeBatched(task: TaskRow, result: string): Promise<TaskRow | null | undefined> {
    return new Promise((done) => {
      if (completions.length === 0) setImmediate(flushCompletions)
      completions.push({ task, result, done })
    })
  }
  async function flushCompletions() {
    const batch = completions
    completions = []
    try {
      // The batch's attempts still hold their slots; their ends are written by this statement.
      const { completed } = await claiming(
        (room) => completeAndClaim(db, batch, runnerId, room),
        batch.length,
      )
      const byId = new Map(completed.map((r) => [r.id, r]))
      for (const entry of batch) entry.done(byId.get(entry.task.id) ?? null)
    } catch (error) {
      databaseLostAt = Date.now()
      log.error('cannot record completed task attempts; retrying one by one', { error })
      // Undefined sends each attempt to the one-by-one path, which retries until it lands.
      for (const entry of batch) entry.done(undefined)
    }
  }

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
        databaseLostAt = Date.now()
        log.error('cannot record the end of a task attempt; retrying', { taskId: task.id, error })
        await sleep(delay)
      }
    }
  }

  async function announce(row: TaskRow, task: TaskRow, settled: Settled) {
    // A retry waits out its backoff; look for it then rather than at the next poll.
    if (row.state === 'queued') {
      setTimeout(kick, Math.max(0, row.nextAttemptAt.getTime() - Date.now())).unref?.()
    }
    const willRetry = row.state === 'queued'
    const outcome = willRetry
      ? 'failed'
      : (row.state as 'completed' | 'failed' | 'cancelled' | 'dead-letter')
    await lifecycle.emit({
      type: 'TaskStop',
      task: row,
      ...ids(task),
      outcome,
      willRetry,
      ...(settled.ok
        ? { result: settled.result }
        : { error: { class: settled.errorClass, message: settled.message } }),
    })
    if (row.state === 'dead-letter')
      await lifecycle.emit({ type: 'dead-letter', task: row, ...ids(task) })
  }

  async function beat() {
    const held = [...attempts.keys()]
    if (held.length === 0) return
    try {
      const states = await heartbeat(db, runnerId, held)
      const alive = new Set(states.map((s) => s.id))
      for (const s of states) {
        if (s.state === 'cancelling') {
          const attempt = attempts.get(s.id)
          if (attempt) abort(attempt, 'cancelled')
        }
      }
      for (const id of held) {
        // Recovered elsewhere while this runner was cut off: stop working on it.
        const attempt = attempts.get(id)
        if (attempt && !alive.has(id)) abort(attempt, 'shutdown')
      }
    } catch (error) {
      databaseLostAt = Date.now()
      log.error('task heartbeat failed', { error })
    }
  }

  function onCancel(taskId: string) {
    const attempt = attempts.get(taskId)
    if (attempt) abort(attempt, 'cancelled')
  }

  function ensureHeartbeat() {
    heartbeatTimer ??= setInterval(() => void beat(), Math.max(50, Math.floor(leaseMs / 3)))
    heartbeatTimer.unref?.()
  }

  return {
    runnerId,
    /** Attempts holding a slot (executors that ignored abort included). */
    get active(): number {
      return attempts.size
    },

    start(): Promise<void> {
      stopRequested = false
      const step = serial.then(async () => {
        if (running) return
        await refreshTiming()
        unlisten = [
          await handle.listen(TASK_WAKE_CHANNEL, kick, kick),
          await handle.listen(TASK_CANCEL_CHANNEL, onCancel),
        ]
        ensureHeartbeat()
        databaseLostAt = 0
        // Startup recovery does not wait a lease for this runner's own database connection.
        await recover()
        if (stopRequested) {
          await Promise.allSettled(unlisten.map((stop) => stop()))
          unlisten = []
          return
        }
        running = true
        startedAt = Date.now()
        loop = runLoop()
      })
      serial = step.catch(() => undefined)
      return step
    },

    /**
     * Stops claiming, aborts running attempts and waits up to the abort acknowledgement for them
     * to settle and be recorded. Attempts whose executor ignores abort keep their slot and their
     * heartbeat until they settle.
     */
    stop(): Promise<void> {
      stopRequested = true
      kick()
      const step = serial.then(async () => {
        if (!running) return
        running = false
        await loop
        // A claim combined with completions may still be launching; after it, none claims more.
        await claimQueue
        const inflight = [...attempts.values()]
        for (const attempt of inflight) abort(attempt, 'shutdown')
        let ackTimer: ReturnType<typeof setTimeout> | undefined
        await Promise.race([
          Promise.allSettled(inflight.map((a) => a.done)),
          new Promise((resolve) => (ackTimer = setTimeout(resolve, timing.abortAckMs))),
        ])
        clearTimeout(ackTimer)
        await Promise.allSettled(unlisten.map((stop) => stop()))
        unlisten = []
        if (attempts.size === 0 && heartbeatTimer) {
          clearInterval(heartbeatTimer)
          heartbeatTimer = undefined
        }
      })
      serial = step.catch(() => undefined)
      return step
    },

    /** Looks for due work now (tests and callers that just enqueued in-process). */
    wake: kick,
  }
}

export type TaskRunner = ReturnType<typeof createTaskRunner>

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name
  return String(error)
}
