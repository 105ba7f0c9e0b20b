import { and, eq, inArray, lte, notInArray, or, sql } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import { tasks } from '../../db/schema/index.ts'
import { PG_UNIQUE_VIOLATION, pgErrorCode } from '../../runtime/pg-errors.ts'
import { enqueue, type TaskRow } from '../../runtime/tasks/index.ts'
import { decide, type Backoff, type ErrorClass } from './failure-policy.ts'

/**
 * The queue's statements. Every write that ends an attempt is fenced by the claim (runner id and
 * attempt number), so a runner that lost its claim (its lease expired and the task was recovered
 * elsewhere) can never overwrite the newer state.
 */

// Identifiers generated in the claim statement itself, one per claimed row and attempt.
const NEW_TURN_ID = sql`'trn_' || replace(gen_random_uuid()::text, '-', '')`
const NEW_TRACE_ID = sql`replace(gen_random_uuid()::text, '-', '')`

/** Claims up to `limit` due queued tasks, counting the attempt in the same statement. */
export async function claim(db: Db, runnerId: string, limit: number): Promise<TaskRow[]> {
  const due = db
    .select({ id: tasks.id })
    .from(tasks)
    .where(and(eq(tasks.state, 'queued'), lte(tasks.nextAttemptAt, sql`now()`)))
    .orderBy(tasks.nextAttemptAt, tasks.createdAt)
    .limit(limit)
    .for('update', { skipLocked: true })
  return db
    .update(tasks)
    .set({
      state: 'running',
      attemptCount: sql`${tasks.attemptCount} + 1`,
      claimedBy: runnerId,
      claimedAt: sql`now()`,
      heartbeatAt: sql`now()`,
      turnId: NEW_TURN_ID,
      traceId: NEW_TRACE_ID,
      updatedAt: sql`now()`,
    })
    .where(inArray(tasks.id, due))
    .returning()
}

const fenceOf = (task: TaskRow) =>
  and(
    eq(tasks.id, task.id),
    eq(tasks.claimedBy, task.claimedBy!),
    eq(tasks.attemptCount, task.attemptCount),
  )
const fence = (task: TaskRow) => and(fenceOf(task), inArray(tasks.state, ['running', 'cancelling']))

/** Renews the lease of this runner's attempts; answers their current states. */
export async function heartbeat(db: Db, runnerId: string, ids: string[]) {
  if (ids.length === 0) return []
  return db
    .update(tasks)
    .set({ heartbeatAt: sql`now()` })
    .where(and(inArray(tasks.id, ids), eq(tasks.claimedBy, runnerId)))
    .returning({ id: tasks.id, state: tasks.state, attemptCount: tasks.attemptCount })
}

/**
 * Ends many successful attempts in one statement (the runner batches completions that arrive
 * together). Each row is fenced by its own claim; a row marked `cancelling` meanwhile becomes
 * `cancelled` instead, as in `finish`. Rows whose claim was lost are simply not returned.
 */
export async function completeMany(
  db: Db,
  done: ReadonlyArray<{ task: TaskRow; result: string }>,
): Promise<TaskRow[]> {
  const cancelling = sql`${tasks.state} = 'cancelling'`
  const results = sql.join(
    done.map(({ task, result }) => sql`when ${task.id} then ${result}`),
    sql` `,
  )
  return db
    .update(tasks)
    .set({
      state: sql`case when ${cancelling} then 'cancelled' else 'completed' end`,
      result: sql`case when ${cancelling} then ${tasks.result} else (case ${tasks.id} ${results} end) end`,
      lastErrorClass: sql`case when ${cancelling} then 'cancelled' else null end`,
      finishedAt: sql`now()`,
      updatedAt: sql`now()`,
      claimedBy: null,
      heartbeatAt: null,
    })
    .where(
      and(
        inArray(tasks.state, ['running', 'cancelling']),
        or(...done.map(({ task }) => fenceOf(task))),
      ),
    )
    .returning()
}

export type Settled =
  { ok: true; result: string } | { ok: false; errorClass: ErrorClass; message: string }

/**
 * Ends an attempt after its executor settled. A task marked `cancelling` becomes `cancelled`
 * whatever the executor did; otherwise success completes it and failure goes through the
 * failure policy (`interrupted` by shutdown follows the recovery rule instead). A permanent
 * failure enqueues its one remediation task in the same transaction. Null when the claim was
 * lost (nothing is written then).
 */
export async function finish(
  db: Db,
  task: TaskRow,
  settled: Settled,
  backoff: Backoff,
): Promise<TaskRow | null> {
  return db.transaction(async (tx) => {
    const [current] = await tx.select().from(tasks).where(fence(task)).for('update')
    if (!current) return null
    const now = new Date()
    const common = { updatedAt: now, claimedBy: null, heartbeatAt: null }
    let values: Partial<TaskRow>
    if (current.state === 'cancelling') {
      values = { state: 'cancelled', lastErrorClass: 'cancelled', finishedAt: now }
    } else if (settled.ok) {
      values = { state: 'completed', result: settled.result, finishedAt: now, lastErrorClass: null }
    } else {
      const decision =
        settled.errorClass === 'interrupted'
          ? afterInterruption(current, now)
          : decide(current, settled.errorClass, now, backoff)
      values = {
        state: decision.state,
        lastErrorClass: settled.errorClass,
        lastError: settled.message,
        ...(decision.state === 'queued'
          ? { nextAttemptAt: decision.nextAttemptAt }
          : { finishedAt: now }),
        ...(decision.state === 'dead-letter' && { deadLetteredAt: now }),
      }
    }
    const [row] = await tx
      .update(tasks)
      .set({ ...values, ...common })
      .where(eq(tasks.id, task.id))
      .returning()
    if (row && isPermanentFailure(row)) await enqueueRemediation(tx, row)
    return row ?? null
  })
}

/** The restart-recovery rule, also used for attempts stopped by a shutdown. */
function afterInterruption(
  task: Pick<TaskRow, 'attemptCount' | 'maxAttempts'>,
  now: Date,
): { state: 'queued'; nextAttemptAt: Date } | { state: 'dead-letter' } {
  return task.attemptCount < task.maxAttempts
    ? { state: 'queued', nextAttemptAt: now }
    : { state: 'dead-letter' }
}

function isPermanentFailure(row: TaskRow): boolean {
  return row.state === 'failed' || row.state === 'dead-letter'
}

/**
 * One remediation per permanently failed task, never for a remediation itself. The unique
 * partial index on `parent_task_id` makes a second attempt (another failure of the same parent,
 * or another host) a no-op.
 */
export async function enqueueRemediation(db: Db, parent: TaskRow): Promise<void> {
  if (parent.kind === 'remediation') return
  const [existing] = await db
    .select({ id: tasks.id })
    .from(tasks)
    .where(and(eq(tasks.parentTaskId, parent.id), eq(tasks.kind, 'remediation')))
  if (existing) return
  await db
    .transaction(async (savepoint) => {
      await enqueue(savepoint, {
        source: parent.source,
        kind: 'remediation',
        workspaceId: parent.workspaceId,
        parentTaskId: parent.id,
        title: `Remediate: ${parent.title}`.slice(0, 200),
        prompt: remediationPrompt(parent),
        model: null,
        maxAttempts: 5,
      })
    })
    .catch((error: unknown) => {
      // Lost a race with another host to the unique index: that host's remediation stands.
      if (pgErrorCode(error) !== PG_UNIQUE_VIOLATION) throw error
    })
}

function remediationPrompt(parent: TaskRow): string {
  return [
    `Background task ${parent.id} ended ${parent.state} after ${parent.attemptCount} attempt(s).`,
    `Failure class: ${parent.lastErrorClass ?? 'unknown'}.`,
    `Failure: ${(parent.lastError ?? '').slice(0, 2_000)}`,
    '',
    'Original request:',
    parent.prompt,
    '',
    `Look the task up exactly with \`popagent task ${parent.id}\` and investigate why it failed.`,
    'Finish the original request if you can. Only when concrete evidence proves the original',
    `request is satisfied, run \`popagent task-resolve ${parent.id} --evidence "<what proves it>"\`.`,
    'A report of success alone does not resolve the parent task.',
  ].join('\n')
}

export type RecoveryCounts = {
  requeued: number
  deadLettered: number
  failed: number
  cancelled: number
}

/**
 * Restart recovery of abandoned claims: running or cancelling rows whose lease has expired and
 * that this runner is not executing. Cancelling work is finalised as cancelled; work claimed
 * longer ago than `staleAfterMs` fails (too old to replay); the rest is requeued below its
 * attempt limit and dead-lettered at it. Prompt, model, session, schedule and workspace stay.
 */
export async function recoverAbandoned(
  db: Db,
  options: { leaseMs: number; staleAfterMs: number; exclude: string[] },
): Promise<TaskRow[]> {
  return db.transaction(async (tx) => {
    const abandoned = await tx
      .select()
      .from(tasks)
      .where(
        and(
          inArray(tasks.state, ['running', 'cancelling']),
          sql`(${tasks.heartbeatAt} is null or ${tasks.heartbeatAt} < now() - make_interval(secs => ${options.leaseMs / 1000}))`,
          options.exclude.length > 0 ? notInArray(tasks.id, options.exclude) : undefined,
        ),
      )
      .for('update', { skipLocked: true })
    const recovered: TaskRow[] = []
    const now = new Date()
    for (const task of abandoned) {
      const claimedAt = task.claimedAt?.getTime() ?? 0
      const values: Partial<TaskRow> =
        task.state === 'cancelling'
          ? { state: 'cancelled', lastErrorClass: 'cancelled', finishedAt: now }
          : now.getTime() - claimedAt > options.staleAfterMs
            ? {
                state: 'failed',
                lastErrorClass: 'stale',
                lastError: `interrupted ${Math.round((now.getTime() - claimedAt) / 60_000)} min into its attempt, too long ago to replay`,
                finishedAt: now,
              }
            : {
                ...afterInterruption(task, now),
                lastErrorClass: 'interrupted',
                lastError: `the runner ${task.claimedBy ?? ''} stopped during attempt ${task.attemptCount}`,
              }
      if (values.state === 'dead-letter')
        Object.assign(values, { deadLetteredAt: now, finishedAt: now })
      const [row] = await tx
        .update(tasks)
        .set({ ...values, claimedBy: null, heartbeatAt: null, updatedAt: now })
        .where(eq(tasks.id, task.id))
        .returning()
      if (row && isPermanentFailure(row)) await enqueueRemediation(tx, row)
      if (row) recovered.push(row)
    }
    return recovered
  })
}
