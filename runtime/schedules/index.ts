import { and, asc, desc, eq, sql, type SQL } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { scheduleFires, schedules, tasks } from '../../db/schema/index.ts'
import type { TaskSource } from '../../db/schema/tasks.ts'
import type { CronPreview } from '../contracts/host-api.ts'
import type {
  CreateScheduleInput,
  PatchScheduleInput,
  Schedule,
  ScheduleLastTask,
} from '../contracts/schedules.ts'
import { createId } from '../ids.ts'
import { assertExists } from '../workspaces/index.ts'
import { ScheduleNotFound, ScheduleSystemOwned } from './errors.ts'

/**
 * Cron schedules (T9). These functions only store what the compute host has checked: croner is
 * Node-only, so an expression reaches the database as a `CheckedCron`, which only the host's
 * answer can produce. Materialising occurrences into tasks is the host's scheduler.
 */
export type ScheduleRow = typeof schedules.$inferSelect

/** A cron expression the compute host accepted, and its first occurrence after now. */
export type CheckedCron = { expression: string; timezone: string; nextRunAt: Date }

export function checkedCron(expression: string, preview: CronPreview): CheckedCron {
  return { expression, timezone: preview.timezone, nextRunAt: new Date(preview.next[0]!) }
}

// System schedules (self-update, build-maintenance) keep their code-owned name and payload: the
// operator may retime, pause and resume them, and choose their catch-up (when, not what), but not
// rewrite or delete them.
const SYSTEM_EDITABLE = new Set(['cron', 'enabled', 'catchUp'])

const iso = (d: Date | null) => (d ? d.toISOString() : null)

type LastTaskRow = { id: string; state: ScheduleLastTask['state']; createdAt: Date }

export function toSchedule(
  row: ScheduleRow,
  timezone: string | null,
  lastTask: LastTaskRow | null = null,
  skippedCount = 0,
): Schedule {
  return {
    id: row.id,
    source: row.source,
    workspaceId: row.workspaceId,
    name: row.name,
    cron: row.cron,
    prompt: row.prompt,
    model: row.model,
    enabled: row.enabled,
    maxAttempts: row.maxAttempts,
    catchUp: row.catchUp,
    nextRunAt: iso(row.nextRunAt),
    lastFiredAt: iso(row.lastFiredAt),
    timezone,
    lastTask: lastTask && { ...lastTask, createdAt: lastTask.createdAt.toISOString() },
    skippedCount,
    deliverTo: row.deliverToBindingId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }
}

/**
 * Schedules with the newest task each one queued (its occurrences and runs now alike), found
 * through the tasks' `schedule_id`: a deleted task leaves the one before it as the last. The
 * count of skipped occurrences reads only the fire records' partial index of skips.
 */
async function read(db: Db, timezone: string | null, where?: SQL): Promise<Schedule[]> {
  const last = db
    .select({ id: tasks.id, state: tasks.state, createdAt: tasks.createdAt })
    .from(tasks)
    .where(eq(tasks.scheduleId, schedules.id))
    .orderBy(desc(tasks.createdAt), desc(tasks.id))
    .limit(1)
    .as('last_task')
  const skipped = db
    .select({ count: sql<number>`count(*)::int`.as('count') })
    .from(scheduleFires)
    .where(and(eq(scheduleFires.scheduleId, schedules.id), eq(scheduleFires.outcome, 'skipped')))
    .as('skipped')
  const rows = await db
    .select({
      schedule: schedules,
      last: { id: last.id, state: last.state, createdAt: last.createdAt },
      skipped: skipped.count,
    })
    .from(schedules)
    .leftJoinLateral(last, sql`true`)
    .leftJoinLateral(skipped, sql`true`)
    .where(where)
    .orderBy(asc(schedules.createdAt), asc(schedules.id))
  return rows.map((r) => toSchedule(r.schedule, timezone, r.last, r.skipped ?? 0))
}

export async function list(db: Db, timezone: string | null): Promise<Schedule[]> {
  return read(db, timezone)
}

export async function get(db: Db, id: string, timezone: string | null): Promise<Schedule> {
  const [schedule] = await read(db, timezone, eq(schedules.id, id))
  if (!schedule) throw new ScheduleNotFound({ id })
  return schedule
}

export type NewSchedule = Omit<CreateScheduleInput, 'cron'> & {
  cron: CheckedCron
  /** `user` from the API; the system schedulers name their own. */
  source: TaskSource
}

/** A schedule in a registered workspace. A disabled one has no next occurrence until enabled. */
export async function create(db: Db, input: NewSchedule): Promise<Schedule> {
  await assertExists(db, input.workspaceId)
  const enabled = input.enabled ?? true
  const [row] = await db
    .insert(schedules)
    .values({
      id: createId('schedule'),
      source: input.source,
      workspaceId: input.workspaceId,
      name: input.name,
      cron: input.cron.expression,
      prompt: input.prompt,
      model: input.model ?? null,
      enabled,
      ...(input.maxAttempts && { maxAttempts: input.maxAttempts }),
      ...(input.catchUp && { catchUp: input.catchUp }),
      nextRunAt: enabled ? input.cron.nextRunAt : null,
      deliverToBindingId: input.deliverTo ?? null,
    })
    .returning()
  return toSchedule(row!, input.cron.timezone)
}

export type ScheduleChanges = Omit<PatchScheduleInput, 'cron'> & { cron?: CheckedCron }

/**
 * Changes only the given fields (`maxAttempts` and the rest stay as they were). The row is locked
 * so the scheduler never materialises an occurrence from a half-applied edit.
 */
export async function patch(
  db: Db,
  id: string,
  changes: ScheduleChanges,
  timezone: string | null,
): Promise<Schedule> {
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(schedules).where(eq(schedules.id, id)).for('update')
    if (!row) throw new ScheduleNotFound({ id })
    const refused = Object.keys(changes).filter((key) => !SYSTEM_EDITABLE.has(key))
    if (row.source !== 'user' && refused.length > 0) {
      throw new ScheduleSystemOwned({ id, fields: refused })
    }
    const { cron, deliverTo, ...fields } = changes
    await tx
      .update(schedules)
      .set({
        ...fields,
        ...(cron && { cron: cron.expression }),
        ...(deliverTo !== undefined && { deliverToBindingId: deliverTo }),
        nextRunAt: nextRunAfter(row, changes),
        updatedAt: sql`now()`,
      })
      .where(eq(schedules.id, id))
    return get(tx, id, timezone)
  })
}

/**
 * A new cron starts at its first occurrence after now. Disabling clears the next occurrence, and
 * re-enabling leaves it clear: the scheduler then computes it from that moment without firing, so
 * occurrences missed while a schedule was off are never made up.
 */
function nextRunAfter(row: ScheduleRow, changes: ScheduleChanges): Date | null {
  const enabled = changes.enabled ?? row.enabled
  if (!enabled) return null
  if (changes.cron) return changes.cron.nextRunAt
  return row.enabled ? row.nextRunAt : null
}

/** Deletes a user schedule and its fire records; tasks it already created stay. */
export async function remove(db: Db, id: string): Promise<void> {
  const deleted = await db
    .delete(schedules)
    .where(and(eq(schedules.id, id), eq(schedules.source, 'user')))
    .returning({ id: schedules.id })
  if (deleted.length > 0) return
  const [row] = await db
    .select({ source: schedules.source })
    .from(schedules)
    .where(eq(schedules.id, id))
  if (!row) throw new ScheduleNotFound({ id })
  throw new ScheduleSystemOwned({ id })
}
