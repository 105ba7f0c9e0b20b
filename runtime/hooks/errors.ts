import { AppError } from '../errors.ts'

export const HookNotFound = AppError.define('HOOK_NOT_FOUND', 404, 'hook not found')
export const HookInvalid = AppError.define(
  'HOOK_INVALID',
  422,
  'the hook definition is not allowed',
)
/** A blocking hook said no (or failed, which says no): the work it guards does not happen. */
export const HookDenied = AppError.define('HOOK_DENIED', 422, 'denied by a hook')
