import { isAutonomousSource, RESOLVABLE_TASK_STATES } from '../../db/task-enums.ts'
import { and, desc, eq, inArray, sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { sessions, taskActivity, tasks, TERMINAL_TASK_STATES } from '../../db/schema/index.ts'
import type { TaskKind, TaskSource } from '../../db/schema/tasks.ts'
import type {
  CreateTaskInput,
  Task,
  TaskActivityRecord,
  TaskState,
  TaskWorkflow,
} from '../contracts/tasks.ts'
import { createId } from '../ids.ts'
import { latestPhases } from '../self-update/phase-store.ts'
import { AutonomousTaskActive, isAutonomousSlotTaken } from '../self-update/autonomous-slot.ts'
import { WorkspaceNotFound } from '../sessions/errors.ts'
import { assertExists } from '../workspaces/index.ts'
import { TASK_CANCEL_CHANNEL } from './notify-topics.ts'
import { TaskActive, TaskNotCancellable, TaskNotFound, TaskNotResolvable } from './errors.ts'

export type TaskRow = typeof tasks.$inferSelect

const iso = (d: Date | null) => (d ? d.toISOString() : null)

export function toTask(row: TaskRow): Task {
  return {
    id: row.id,
    source: row.source,
    kind: row.kind,
    workspaceId: row.workspaceId,
    sessionId: row.sessionId,
    scheduleId: row.scheduleId,
    occurrenceAt: iso(row.occurrenceAt),
    parentTaskId: row.parentTaskId,
    title: row.title,
    prompt: row.prompt,
    model: row.model,
    state: row.state,
    attemptCount: row.attemptCount,
    maxAttempts: row.maxAttempts,
    nextAttemptAt: row.nextAttemptAt.toISOString(),
    lastErrorClass: row.lastErrorClass,
    lastError: row.lastError,
    waiting:
      row.state === 'queued' && row.lastErrorClass
        ? {
            errorClass: row.lastErrorClass,
            error: row.lastError,
            nextAttemptAt: row.nextAttemptAt.toISOString(),
          }
        : null,
    deadLetteredAt: iso(row.deadLetteredAt),
    result: row.result,
    resolutionEvidence: row.resolutionEvidence,
    resolvedAt: iso(row.resolvedAt),
    claimedBy: row.claimedBy,
    finishedAt: iso(row.finishedAt),
    turnId: row.turnId,
    traceId: row.traceId,
    budget: row.budget,
    budgetUsed: budgetUsedOf(row.budgetUsed),
    deliverTo: row.deliverToBindingId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }
}

/** Everything a new task row needs; provenance (source, workspace) is fixed from here on. */
export type NewTask = {
  /** Given when the caller must record the id before the row exists (a schedule's fire). */
  id?: string
  source: TaskSource
  kind?: TaskKind
  workspaceId: string
  title: string
  prompt: string
  model?: string | null
  sessionId?: string | null
  scheduleId?: string | null
  occurrenceAt?: Date | null
  parentTaskId?: string | null
  maxAttempts?: number
  nextAttemptAt?: Date
  /** Lower budget limits for this task (B1); null keeps the settings'. */
  budget?: Record<string, number> | null
  /** What the task's tree used before it (a remediation's parent). */
  budgetUsed?: Record<string, number> | null
  /** The channel binding its result is posted to when it ends (checked by the caller). */
  deliverToBindingId?: string | null
}

/**
 * Inserts a queued task; the insert trigger (migration 0006) wakes the runners. Call it inside the
 * caller's transaction when the task belongs to a larger change (a schedule occurrence): the
 * NOTIFY is delivered on commit.
 */
export async function enqueue(db: Db, input: NewTask): Promise<TaskRow> {
  const insert = async (tx: Db) => {
    const [row] = await tx
      .insert(tasks)
      .values({ ...input, id: input.id ?? createId('task') })
      .returning()
    return row!
  }
  if (!isAutonomousSource(input.source)) return insert(db)
  // An autonomous task (self-update, build-maintenance) may meet the one-active index: in a
  // savepoint, so the caller's transaction (a schedule pass) survives the refusal and can skip
  // the occurrence.
  return db.transaction(insert).catch((error: unknown) => {
    if (isAutonomousSlotTaken(error)) throw new AutonomousTaskActive(undefined, { cause: error })
    throw error
  })
}

/** A task from the API: source `user`, in a registered workspace (and session, when named). */
export async function create(db: Db, input: CreateTaskInput): Promise<Task> {
  await assertExists(db, input.workspaceId)
  if (input.sessionId) {
    const [session] = await db
      .select({ workspaceId: sessions.workspaceId })
      .from(sessions)
      .where(eq(sessions.id, input.sessionId))
    if (!session || session.workspaceId !== input.workspaceId) {
      throw new WorkspaceNotFound(
        { sessionId: input.sessionId, workspaceId: input.workspaceId },
        { message: 'the session does not exist in this workspace' },
      )
    }
  }
  const row = await enqueue(db, {
    source: 'user',
    workspaceId: input.workspaceId,
    title: input.title ?? titleOf(input.prompt),
    prompt: input.prompt,
    model: input.model ?? null,
    sessionId: input.sessionId ?? null,
    ...(input.maxAttempts && { maxAttempts: input.maxAttempts }),
    ...(input.budget && { budget: input.budget }),
    deliverToBindingId: input.deliverTo ?? null,
  })
  return toTask(row)
}

function budgetUsedOf(value: Record<string, number> | null): Task['budgetUsed'] {
  if (!value) return null
  return {
    inputTokens: value.inputTokens ?? 0,
    outputTokens: value.outputTokens ?? 0,
    toolCalls: value.toolCalls ?? 0,
    wallTimeMs: value.wallTimeMs ?? 0,
    // The tree's cost goes on with it (attempts, remediation); trees recorded before have none.
    ...(value.costUsd !== undefined && { costUsd: value.costUsd }),
  }
}

/**
 * Stores what the task's tree has used after an attempt; a remediation starts from its parent's
 * figure, so the tree shares one budget.
 */
export async function recordBudgetUsed(
  db: Db,
  id: string,
  used: NonNullable<Task['budgetUsed']>,
): Promise<void> {
  await db.update(tasks).set({ budgetUsed: used }).where(eq(tasks.id, id))
}

export function titleOf(prompt: string): string {
  const line = prompt.trim().split('\n', 1)[0]!
  return line.length > 80 ? `${line.slice(0, 79)}…` : line
}

export async function list(
  db: Db,
  query: { state?: TaskState; workspaceId?: string; limit?: number } = {},
): Promise<Task[]> {
  const rows = await db
    .select()
    .from(tasks)
    .where(
      and(
        query.state ? eq(tasks.state, query.state) : undefined,
        query.workspaceId ? eq(tasks.workspaceId, query.workspaceId) : undefined,
      ),
    )
    .orderBy(desc(tasks.createdAt), desc(tasks.id))
    .limit(query.limit ?? 100)
  return rows.map(toTask)
}

export async function getRow(db: Db, id: string): Promise<TaskRow> {
  const [row] = await db.select().from(tasks).where(eq(tasks.id, id))
  if (!row) throw new TaskNotFound({ id })
  return row
}

export async function get(db: Db, id: string): Promise<Task> {
  return toTask(await getRow(db, id))
}

/**
 * Queued work is cancelled at once. Running work becomes `cancelling` and its runner is told;
 * it turns `cancelled` only after the executor has settled (the runner does that). Asking again
 * while cancelling is a no-op; finished work is a 409.
 */
export async function cancel(db: Db, id: string): Promise<Task> {
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(tasks).where(eq(tasks.id, id)).for('update')
    if (!row) throw new TaskNotFound({ id })
    if (row.state === 'queued') {
      const [done] = await tx
        .update(tasks)
        .set({
          state: 'cancelled',
          lastErrorClass: 'cancelled',
          finishedAt: sql`now()`,
          updatedAt: sql`now()`,
        })
        .where(eq(tasks.id, id))
        .returning()
      return toTask(done!)
    }
    if (row.state === 'running') {
      const [marked] = await tx
        .update(tasks)
        .set({ state: 'cancelling', updatedAt: sql`now()` })
        .where(eq(tasks.id, id))
        .returning()
      await tx.execute(sql`select pg_notify(${TASK_CANCEL_CHANNEL}, ${id})`)
      return toTask(marked!)
    }
    if (row.state === 'cancelling') return toTask(row)
    throw new TaskNotCancellable({ id, state: row.state })
  })
}

/**
 * An operator's resolution of failed, cancelled or dead-lettered work: the record stays, with the
 * evidence, and becomes completed; stale failure and retry fields are cleared.
 */
export async function resolve(db: Db, id: string, evidence: string): Promise<Task> {
  const [row] = await db
    .update(tasks)
    .set({
      state: 'completed',
      resolutionEvidence: evidence,
      resolvedAt: sql`now()`,
      lastErrorClass: null,
      lastError: null,
      deadLetteredAt: null,
      updatedAt: sql`now()`,
    })
    .where(and(eq(tasks.id, id), inArray(tasks.state, [...RESOLVABLE_TASK_STATES])))
    .returning()
  if (row) return toTask(row)
  const existing = await getRow(db, id)
  throw new TaskNotResolvable({ id, state: existing.state })
}

/** Removes a finished task and its transcript; never touches running work or the repository. */
export async function remove(db: Db, id: string): Promise<void> {
  const deleted = await db
    .delete(tasks)
    .where(and(eq(tasks.id, id), inArray(tasks.state, [...TERMINAL_TASK_STATES])))
    .returning({ id: tasks.id })
  if (deleted.length > 0) return
  const existing = await getRow(db, id)
  throw new TaskActive({ id, state: existing.state })
}

/** The task's retained activity records, oldest first. */
export async function activity(db: Db, id: string): Promise<TaskActivityRecord[]> {
  const rows = await db
    .select()
    .from(taskActivity)
    .where(eq(taskActivity.taskId, id))
    .orderBy(taskActivity.id)
  return rows.map((r) => ({
    id: r.id,
    attempt: r.attempt,
    createdAt: r.createdAt.toISOString(),
    record: r.record,
  }))
}

/** The workflow view: a self-update task's phases (latest attempt); ordinary work has none. */
export async function workflow(db: Db, id: string): Promise<TaskWorkflow> {
  const task = await get(db, id)
  return { task, phases: await latestPhases(db, id), activity: await activity(db, id) }
}
