import { AppError } from '../errors.ts'
import { pgErrorCode, PG_UNIQUE_VIOLATION } from '../pg-errors.ts'

export const AutonomousTaskActive = AppError.define(
  'AUTONOMOUS_TASK_ACTIVE',
  409,
  'an autonomous task (self-update or build-maintenance) is already queued, running or cancelling; only one runs at a time',
)

const SLOT_INDEX = 'popagent_agent_tasks_one_autonomous'

/**
 * Whether `error` is the one-autonomous-task index refusing an insert. Read from the constraint
 * name each driver reports (postgres.js `constraint_name`, PGlite `constraint`) or, failing that,
 * PostgreSQL's own message, through drizzle's wrapper.
 */
export function isAutonomousSlotTaken(error: unknown): boolean {
  if (pgErrorCode(error) !== PG_UNIQUE_VIOLATION) return false
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const fields = e as { constraint_name?: unknown; constraint?: unknown; message?: unknown }
    if (fields.constraint_name === SLOT_INDEX || fields.constraint === SLOT_INDEX) return true
    if (typeof fields.message === 'string' && fields.message.includes(`"${SLOT_INDEX}"`))
      return true
    e = (e as { cause?: unknown }).cause
  }
  return false
}
