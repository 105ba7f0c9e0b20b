import { AppError } from '../errors.ts'

export const TaskNotFound = AppError.define('TASK_NOT_FOUND', 404, 'task not found')
export const TaskActive = AppError.define(
  'TASK_ACTIVE',
  409,
  'the task is still queued, running or cancelling; cancel it and wait for it to settle first',
)
export const TaskNotResolvable = AppError.define(
  'TASK_NOT_RESOLVABLE',
  409,
  'only failed, cancelled or dead-lettered tasks can be resolved',
)
export const TaskNotCancellable = AppError.define(
  'TASK_NOT_CANCELLABLE',
  409,
  'the task has already finished',
)
export const TaskNotRetryable = AppError.define(
  'TASK_NOT_RETRYABLE',
  409,
  'only your own agent tasks can be retried; self-update and remediation work runs inside its own workflow',
)
