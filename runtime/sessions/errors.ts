import { AppError } from '../errors.ts'

export const SessionNotFound = AppError.define('SESSION_NOT_FOUND', 404, 'session not found')
export const WorkspaceNotFound = AppError.define('WORKSPACE_NOT_FOUND', 404, 'workspace not found')
