/**
 * The task and schedule enumerations, free of any import: the Drizzle schema, the wire contracts
 * and (through them) the UI share these lists.
 */

/** Who owns a task or schedule. Fixed at creation (a trigger refuses changes). */
export const TASK_SOURCES = ['user', 'self-update', 'build-maintenance'] as const
export type TaskSource = (typeof TASK_SOURCES)[number]
/**
 * The sources that share the autonomous lease: one task of these, queued, running or cancelling,
 * across every host (the partial unique index `popagent_agent_tasks_one_autonomous`).
 */
export const AUTONOMOUS_SOURCES = ['self-update', 'build-maintenance'] as const
export const isAutonomousSource = (source: TaskSource): boolean =>
  (AUTONOMOUS_SOURCES as readonly string[]).includes(source)

export const TASK_STATES = [
  'queued',
  'running',
  'cancelling',
  'completed',
  'failed',
  'cancelled',
  'dead-letter',
] as const
export type TaskState = (typeof TASK_STATES)[number]

export const TERMINAL_TASK_STATES = ['completed', 'failed', 'cancelled', 'dead-letter'] as const
/** States that still change on their own: clients poll while a task is in one. */
export const LIVE_TASK_STATES = ['queued', 'running', 'cancelling'] as const
/** States a cancel request applies to (a cancelling task is already on its way). */
export const CANCELLABLE_TASK_STATES = ['queued', 'running'] as const
/** States an owner may resolve with evidence that the work is done. */
export const RESOLVABLE_TASK_STATES = ['failed', 'cancelled', 'dead-letter'] as const

/** `agent` is ordinary work; `remediation` investigates a permanently failed parent. */
export const TASK_KINDS = ['agent', 'remediation'] as const
export type TaskKind = (typeof TASK_KINDS)[number]

/**
 * What a schedule does with occurrences missed while no host ran (docs/schedules.md): `latest`
 * fires the newest only, `each` fires each up to a bound, `none` fires none that is late.
 */
export const SCHEDULE_CATCH_UPS = ['latest', 'each', 'none'] as const
export type ScheduleCatchUp = (typeof SCHEDULE_CATCH_UPS)[number]

/** An occurrence either became a task or was skipped, with the reason recorded beside it. */
export const SCHEDULE_OCCURRENCE_OUTCOMES = ['fired', 'skipped'] as const
export type ScheduleOccurrenceOutcome = (typeof SCHEDULE_OCCURRENCE_OUTCOMES)[number]
