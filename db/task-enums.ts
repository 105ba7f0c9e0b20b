/**
 * The task and schedule enumerations, free of any import: the Drizzle schema, the wire contracts
 * and (through them) the UI share these lists.
 */

/** Who owns a task or schedule. Fixed at creation (a trigger refuses changes). */
export const TASK_SOURCES = ['user', 'self-update', 'build-maintenance'] as const
export type TaskSource = (typeof TASK_SOURCES)[number]

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
