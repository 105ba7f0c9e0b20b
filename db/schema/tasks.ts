import { sql } from '../drizzle-orm.ts'
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from '../drizzle-pg-core.ts'
import { timestamps } from './_columns.ts'
import { channelBindings } from './channels.ts'
import { sessions } from './sessions.ts'
import { workspaces } from './workspaces.ts'

import {
  AUTONOMOUS_SOURCES,
  SCHEDULE_CATCH_UPS,
  SCHEDULE_OCCURRENCE_OUTCOMES,
  TASK_KINDS,
  TASK_SOURCES,
  TASK_STATES,
  type ScheduleCatchUp,
  type ScheduleOccurrenceOutcome,
  type TaskKind,
  type TaskSource,
  type TaskState,
} from '../task-enums.ts'

export * from '../task-enums.ts'

const time = () => timestamp({ withTimezone: true, mode: 'date' })
const inList = (values: readonly string[]) => sql.raw(`(${values.map((v) => `'${v}'`).join(', ')})`)

/**
 * Background agent work. A runner claims due `queued` rows with FOR UPDATE SKIP LOCKED, which
 * increments `attempt_count` in the same statement; `claimed_by` and `heartbeat_at` tell a live
 * claim from an abandoned one. `turn_id`/`trace_id` belong to the current (or last) attempt.
 */
export const tasks = pgTable(
  'popagent_agent_tasks',
  {
    id: text().primaryKey(),
    source: text().$type<TaskSource>().notNull(),
    kind: text().$type<TaskKind>().notNull().default('agent'),
    workspaceId: text()
      .notNull()
      .references(() => workspaces.id),
    sessionId: text().references(() => sessions.id, { onDelete: 'set null' }),
    scheduleId: text(),
    occurrenceAt: time(),
    parentTaskId: text(),
    title: text().notNull(),
    prompt: text().notNull(),
    model: text(),
    state: text().$type<TaskState>().notNull().default('queued'),
    attemptCount: integer().notNull().default(0),
    maxAttempts: integer().notNull().default(3),
    nextAttemptAt: time().notNull().defaultNow(),
    lastErrorClass: text(),
    lastError: text(),
    deadLetteredAt: time(),
    result: text(),
    resolutionEvidence: text(),
    resolvedAt: time(),
    claimedBy: text(),
    claimedAt: time(),
    heartbeatAt: time(),
    finishedAt: time(),
    turnId: text(),
    traceId: text(),
    /** Per-task budget overrides (B1), within the contract's bounds; null keeps the settings'. */
    budget: jsonb().$type<Record<string, number>>(),
    /** What this task's tree used so far: a remediation starts from its parent's. */
    budgetUsed: jsonb().$type<Record<string, number>>(),
    /** The channel conversation its result is posted to when it ends (migration 0028). */
    deliverToBindingId: text().references(() => channelBindings.id, { onDelete: 'set null' }),
    /**
     * Its delivery is still to be queued: set by a trigger in the statement that ends a task with a
     * binding, cleared with the outbox rows' insert (migration 0034, channels/task-deliveries.ts).
     */
    deliveryPending: boolean().notNull().default(false),
    ...timestamps,
  },
  (t) => [
    index('popagent_agent_tasks_due_idx')
      .on(t.nextAttemptAt, t.createdAt)
      .where(sql`${t.state} = 'queued'`),
    index('popagent_agent_tasks_active_idx')
      .on(t.heartbeatAt)
      .where(sql`${t.state} in ('running', 'cancelling')`),
    index('popagent_agent_tasks_list_idx').on(t.createdAt),
    index('popagent_agent_tasks_delivery_pending_idx')
      .on(t.finishedAt)
      .where(sql`${t.deliveryPending}`),
    index('popagent_agent_tasks_workspace_idx').on(t.workspaceId, t.createdAt),
    // A schedule's last task (runtime/schedules/index.ts reads it per schedule, newest first).
    index('popagent_agent_tasks_schedule_idx')
      .on(t.scheduleId, t.createdAt, t.id)
      .where(sql`${t.scheduleId} is not null`),
    // One remediation per failed parent, however many times the parent fails.
    uniqueIndex('popagent_agent_tasks_remediation_parent_idx')
      .on(t.parentTaskId)
      .where(sql`${t.kind} = 'remediation'`),
    // One autonomous task (self-update or build-maintenance) active across all hosts: the
    // autonomous lease both sources share (issue 24, migration 0013; widened in 0031).
    uniqueIndex('popagent_agent_tasks_one_autonomous')
      .on(sql`(true)`)
      .where(
        sql`${t.source} in ${inList(AUTONOMOUS_SOURCES)} and ${t.state} in ('queued', 'running', 'cancelling')`,
      ),
    check('popagent_agent_tasks_source', sql`${t.source} in ${inList(TASK_SOURCES)}`),
    check('popagent_agent_tasks_state', sql`${t.state} in ${inList(TASK_STATES)}`),
    check('popagent_agent_tasks_kind', sql`${t.kind} in ${inList(TASK_KINDS)}`),
    check('popagent_agent_tasks_attempts', sql`${t.attemptCount} >= 0`),
    // No upper bound: a transient failure at the ceiling moves it up by one (failure-policy.ts);
    // what a client may ask for is bounded by the API contract instead.
    check('popagent_agent_tasks_max_attempts', sql`${t.maxAttempts} >= 1`),
  ],
)

/** The latest iteration records of each task (the runner keeps 256 per task). */
export const taskActivity = pgTable(
  'popagent_agent_task_activity',
  {
    id: bigint({ mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    taskId: text()
      .notNull()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    attempt: integer().notNull(),
    record: jsonb().$type<Record<string, unknown>>().notNull(),
    createdAt: time().notNull().defaultNow(),
  },
  (t) => [index('popagent_agent_task_activity_task_idx').on(t.taskId, t.id)],
)

/**
 * Recurring work. `cron` is evaluated in the server's timezone by the compute host (croner);
 * `next_run_at` is the next occurrence not yet materialised.
 */
export const schedules = pgTable(
  'popagent_agent_schedules',
  {
    id: text().primaryKey(),
    source: text().$type<TaskSource>().notNull(),
    workspaceId: text()
      .notNull()
      .references(() => workspaces.id),
    name: text().notNull(),
    cron: text().notNull(),
    prompt: text().notNull(),
    model: text(),
    enabled: boolean().notNull().default(true),
    maxAttempts: integer().notNull().default(3),
    /** What the scheduler does with occurrences missed while no host ran (migration 0021). */
    catchUp: text().$type<ScheduleCatchUp>().notNull().default('latest'),
    nextRunAt: time(),
    lastFiredAt: time(),
    /** The channel conversation each of its tasks' results is posted to (migration 0028). */
    deliverToBindingId: text().references(() => channelBindings.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (t) => [
    index('popagent_agent_schedules_due_idx')
      .on(t.nextRunAt)
      .where(sql`${t.enabled}`),
    // One system self-update schedule per workspace (issue 24, migration 0013).
    uniqueIndex('popagent_agent_schedules_one_self_update')
      .on(t.workspaceId)
      .where(sql`${t.source} = 'self-update'`),
    check('popagent_agent_schedules_source', sql`${t.source} in ${inList(TASK_SOURCES)}`),
    check('popagent_agent_schedules_max_attempts', sql`${t.maxAttempts} between 1 and 100`),
    check('popagent_agent_schedules_catch_up', sql`${t.catchUp} in ${inList(SCHEDULE_CATCH_UPS)}`),
  ],
)

/**
 * One row per occurrence the scheduler decided: fired (with its task) or skipped (with the reason,
 * e.g. missed while no host ran, or refused by the self-update gate). The unique index makes the
 * decision once per occurrence: a second host's attempt at the same one, fire or skip, is a no-op.
 * `fired_at` is when the row was written, for a skipped occurrence too. Rows from before 0021 are
 * all fires.
 */
export const scheduleFires = pgTable(
  'popagent_agent_schedule_fires',
  {
    scheduleId: text()
      .notNull()
      .references(() => schedules.id, { onDelete: 'cascade' }),
    occurrenceAt: time().notNull(),
    outcome: text().$type<ScheduleOccurrenceOutcome>().notNull().default('fired'),
    /** Null for a fire; why the occurrence was skipped otherwise. */
    reason: text(),
    /** The task a fire created; null for a skipped occurrence. */
    taskId: text(),
    firedAt: time().notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('popagent_agent_schedule_fires_pk').on(t.scheduleId, t.occurrenceAt),
    // The schedule list counts each schedule's skipped occurrences from this index alone.
    index('popagent_agent_schedule_fires_skipped_idx')
      .on(t.scheduleId)
      .where(sql`${t.outcome} = 'skipped'`),
    check(
      'popagent_agent_schedule_fires_outcome',
      sql`${t.outcome} in ${inList(SCHEDULE_OCCURRENCE_OUTCOMES)}`,
    ),
    check(
      'popagent_agent_schedule_fires_shape',
      sql`case ${t.outcome} when 'fired' then ${t.taskId} is not null and ${t.reason} is null else ${t.taskId} is null and ${t.reason} is not null end`,
    ),
  ],
)
