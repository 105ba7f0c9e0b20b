import { AppError } from '../errors.ts'

export const SessionNotFound = AppError.define('SESSION_NOT_FOUND', 404, 'session not found')
export const WorkspaceNotFound = AppError.define('WORKSPACE_NOT_FOUND', 404, 'workspace not found')
export const SessionArchived = AppError.define(
  'SESSION_ARCHIVED',
  409,
  'this session is archived; restore it before sending a message',
)
export const WorkspaceMismatch = AppError.define(
  'WORKSPACE_MISMATCH',
  400,
  'the session belongs to a different workspace',
)
export const TurnInProgress = AppError.define(
  'TURN_IN_PROGRESS',
  409,
  'a reply is still being written in this session; wait for it to finish or stop it',
)
export const HostStopping = AppError.define(
  'HOST_STOPPING',
  409,
  'popagent is restarting; send the message again in a moment',
)
