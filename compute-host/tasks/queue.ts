import {
  and,
  desc,
  eq,
  getTableColumns,
  inArray,
  isNull,
  lte,
  notInArray,
  or,
  sql,
} from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import { taskActivity, tasks } from '../../db/schema/index.ts'
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

/**
 * Claims up to `limit` due queued tasks, counting the attempt in the same statement.
 *
 * The first `limit` unlocked queued rows in due order are locked and only the due ones among them
 * claimed: every due row sorts before every later one, so that is exactly the due rows a direct
 * `next_attempt_at <= now()` would find. Without that range condition in the scan the planner
 * prefers walking the due index in order and stopping after `limit` rows when the table has no
 * statistics yet (a fresh table, a bulk enqueue before autovacuum analyses it): with it, it chose
 * a bitmap scan that sorted the whole backlog on every claim (9 ms instead of 0.05 ms at 20,000
 * queued rows). With a small backlog it may still sort, which is cheap there. Rows not yet due
 * are locked only for the claim statement itself.
 */
export async function claim(db: Db, runnerId: string, limit: number): Promise<TaskRow[]> {
  return claimStatement(db, runnerId, limit)
}

function claimStatement(db: Db, runnerId: string, limit: number) {
  const first = db
    .select({ id: tasks.id, nextAttemptAt: tasks.nextAttemptAt })
    .from(tasks)
    // A literal, so the due index's partial predicate matches in any plan.
    .where(sql`${tasks.state} = 'queued'`)
    .orderBy(tasks.nextAttemptAt, tasks.createdAt)
    .limit(limit)
    .for('update', { skipLocked: true })
    .as('first_queued')
  const due = db
    .select({ id: first.id })
    .from(first)
    .where(lte(first.nextAttemptAt, sql`now()`))
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
  return completeStatement(db, done)
}

function completeStatement(db: Db, done: ReadonlyArray<{ task: TaskRow; result: string }>) {
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

/**
 * `completeMany` and `claim` in one statement and one round trip: the slots the completed
 * attempts free are filled in the same statement that frees them. The two parts touch disjoint
 * rows (running or cancelling ones, queued ones) and are fenced and locked exactly as alone.
 */
export async function completeAndClaim(
  db: Db,
  done: ReadonlyArray<{ task: TaskRow; result: string }>,
  runnerId: string,
  limit: number,
): Promise<{ completed: TaskRow[]; claimed: TaskRow[] }> {
  if (limit <= 0) return { completed: await completeMany(db, done), claimed: [] }
  // Both drivers (node-postgres, PGlite) answer `execute` with the rows under `rows`.
  const result = (await db.execute(sql`
    with completed as (${completeStatement(db, done).getSQL()}),
    claimed as (${claimStatement(db, runnerId, limit).getSQL()})
    select true as "completed?", * from completed
    union all
    select false, * from claimed`)) as unknown as { rows: Record<string, unknown>[] }
  const completed: TaskRow[] = []
  const claimed: TaskRow[] = []
  for (const raw of result.rows) (raw['completed?'] ? completed : claimed).push(taskRow(raw))
  return { completed, claimed }
}

// Column keys and their database names; unnamed columns take the key in snake_case, as the
// `casing: 'snake_case'` the database is opened with (db/index.ts) names them.
const COLUMNS = Object.entries(getTableColumns(tasks)).map(([key, column]) => ({
  key,
  column,
  name: column.keyAsName ? key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : column.name,
}))

/** A raw row (database column names, driver values) as drizzle maps a `returning()` row. */
function taskRow(raw: Record<string, unknown>): TaskRow {
  const row: Record<string, unknown> = {}
  for (const { key, column, name } of COLUMNS) {
    const value = raw[name]
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value)
  }
  return row as TaskRow
}

/**
 * Claims of this runner that it is not executing, made in the last `withinMs`: the claim (or the
 * combined completion and claim) committed but its reply was lost. Only this runner claims under
 * its runner id, so taking them over renews their lease and lets them run now, as their claim
 * intended, rather than waiting a lease for recovery (which would count an attempt that never
 * ran). The window keeps out claims of an earlier process that had the same runner id (a host
 * restarted with the same name and pid): those follow the recovery rules. The caller must have
 * no claim of its own in flight.
 */
export async function adoptClaims(
  db: Db,
  runnerId: string,
  held: string[],
  withinMs: number,
): Promise<TaskRow[]> {
  return db
    .update(tasks)
    .set({ heartbeatAt: sql`now()` })
    .where(
      and(
        eq(tasks.claimedBy, runnerId),
        eq(tasks.state, 'running'),
        sql`${tasks.claimedAt} >= now() - make_interval(secs => ${Math.max(0, withinMs) / 1000})`,
        held.length > 0 ? notInArray(tasks.id, held) : undefined,
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
 *
 * Idempotent: when an earlier write of this same end committed but its reply was lost (the
 * connection broke after the commit), the claim is gone, yet the row shows this attempt's end;
 * that row is answered, so the attempt is announced once and not reported as a lost claim.
 */
export async function finish(
  db: Db,
  task: TaskRow,
  settled: Settled,
  backoff: Backoff,
): Promise<TaskRow | null> {
  return db.transaction(async (tx) => {
    const [current] = await tx.select().from(tasks).where(fence(task)).for('update')
    if (!current) return endedByThisAttempt(tx, task, settled)
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
          ? afterInterruption(current)
          : decide(current, settled.errorClass, now, backoff)
      values = {
        state: decision.state,
        lastErrorClass: settled.errorClass,
        lastError: settled.message,
        ...(decision.state === 'queued'
          ? { nextAttemptAt: decision.nextAttemptAt, maxAttempts: decision.maxAttempts }
          : { finishedAt: now }),
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

/**
 * The row, when it shows that this attempt's own end was already written: the same attempt number
 * and turn id (a later attempt would have new ones, and every claim draws a new turn id), no
 * claim, and the outcome this attempt reports (its result, or its error class and message), or
 * `cancelled` when the attempt was ended after a cancellation. Recovery writes its own error class
 * and message (`interrupted`, `stale`), so a claim recovered elsewhere does not match.
 */
async function endedByThisAttempt(db: Db, task: TaskRow, settled: Settled) {
  const [row] = await db
    .select()
    .from(tasks)
    .where(
      and(
        eq(tasks.id, task.id),
        eq(tasks.attemptCount, task.attemptCount),
        eq(tasks.turnId, task.turnId ?? ''),
        isNull(tasks.claimedBy),
      ),
    )
  if (!row) return null
  if (row.state === 'cancelled' && row.lastErrorClass === 'cancelled') return row
  const ours = settled.ok
    ? row.state === 'completed' && row.result === settled.result
    : row.lastErrorClass === settled.errorClass && row.lastError === settled.message
  return ours ? row : null
}

/**
 * The restart-recovery rule, also used for attempts stopped by a shutdown: interrupted work is
 * queued again at its original due time (the claim never moves `next_attempt_at`), so it is
 * claimed before everything queued after it and a crash delays it by the lease, not by the
 * backlog. An interruption is transient: the attempt ceiling moves up rather than dead-lettering.
 */
function afterInterruption(task: Pick<TaskRow, 'attemptCount' | 'maxAttempts' | 'nextAttemptAt'>): {
  state: 'queued'
  nextAttemptAt: Date
  maxAttempts: number
} {
  return {
    state: 'queued',
    nextAttemptAt: task.nextAttemptAt,
    maxAttempts: Math.max(task.maxAttempts, task.attemptCount + 1),
  }
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
        prompt: remediationPrompt(parent, await transcriptEvidence(savepoint, parent.id)),
        model: null,
        // A starting ceiling only: a remediation retries every failure, moving it up one by one.
        maxAttempts: 1,
      })
    })
    .catch((error: unknown) => {
      // Lost a race with another host to the unique index: that host's remediation stands.
      if (pgErrorCode(error) !== PG_UNIQUE_VIOLATION) throw error
    })
}

const EVIDENCE_RECORDS = 24
const EVIDENCE_RECORD_CHARS = 600
const EVIDENCE_CHARS = 8_000

/**
 * The parent's workflow evidence: its newest transcript records (steps, tool calls and their
 * results, already redacted when they were stored), oldest first, each cut to a few hundred
 * characters and all of them to a bounded total, so the remediation sees what the attempt did and
 * not only how it ended.
 */
async function transcriptEvidence(db: Db, taskId: string): Promise<string[]> {
  const rows = await db
    .select({ attempt: taskActivity.attempt, record: taskActivity.record })
    .from(taskActivity)
    .where(eq(taskActivity.taskId, taskId))
    .orderBy(desc(taskActivity.id))
    .limit(EVIDENCE_RECORDS)
  const lines: string[] = []
  let total = 0
  for (const row of rows) {
    const text = JSON.stringify(row.record)
    const line = `#${row.attempt} ${text.length > EVIDENCE_RECORD_CHARS ? `${text.slice(0, EVIDENCE_RECORD_CHARS - 1)}…` : text}`
    if (total + line.length > EVIDENCE_CHARS) break
    total += line.length
    lines.push(line)
  }
  return lines.reverse()
}

function remediationPrompt(parent: TaskRow, transcript: string[]): string {
  return [
    `Background task ${parent.id} ended ${parent.state} after ${parent.attemptCount} attempt(s).`,
    `Failure class: ${parent.lastErrorClass ?? 'unknown'}.`,
    `Failure: ${(parent.lastError ?? '').slice(0, 2_000)}`,
    '',
    'Original request:',
    parent.prompt,
    '',
    transcript.length > 0
      ? `Workflow evidence (the newest ${transcript.length} transcript records, oldest first; #n is the attempt):`
      : 'Workflow evidence: the task recorded no transcript.',
    ...transcript,
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
 * longer ago than `staleAfterMs` fails (too old to replay); the rest is queued again at its
 * original due time (`afterInterruption`). Prompt, model, session, schedule and workspace stay.
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
                ...afterInterruption(task),
                lastErrorClass: 'interrupted',
                lastError: `the runner ${task.claimedBy ?? ''} stopped during attempt ${task.attemptCount}`,
              }
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
