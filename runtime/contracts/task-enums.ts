/**
 * The task enumerations for clients: the lists live in db/task-enums.ts (beside the schema's check
 * constraints); this module re-exports them without zod, so a UI page does not bundle the
 * validation library to know which states it may poll, cancel, resolve or delete.
 */
export {
  CANCELLABLE_TASK_STATES,
  LIVE_TASK_STATES,
  RESOLVABLE_TASK_STATES,
  SCHEDULE_CATCH_UPS,
  TASK_STATES,
  TERMINAL_TASK_STATES,
} from '../../db/task-enums.ts'
