import { AppError } from '../errors.ts'

export const ScheduleNotFound = AppError.define('SCHEDULE_NOT_FOUND', 404, 'schedule not found')
/** Thrown by the compute host (which owns croner) and passed on by the edge as it is. */
export const InvalidCron = AppError.define('INVALID_CRON', 400, 'invalid cron expression')
export const ScheduleSystemOwned = AppError.define(
  'SCHEDULE_SYSTEM_OWNED',
  409,
  'a system schedule accepts only cron and enabled changes and cannot be deleted',
)
export const SelfUpdateOff = AppError.define(
  'SELF_UPDATE_OFF',
  409,
  'self-update is off: turn it on in the autonomy settings to run a self-update schedule',
)
