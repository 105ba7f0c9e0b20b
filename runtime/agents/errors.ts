import { AppError } from '../errors.ts'

export const AgentNotFound = AppError.define('AGENT_NOT_FOUND', 404, 'no agent with this id')
export const SkillNotFound = AppError.define('SKILL_NOT_FOUND', 404, 'no skill with this id')
export const SkillNameTaken = AppError.define(
  'SKILL_NAME_TAKEN',
  409,
  'this agent already has a skill with this name',
)
export const SupervisorNotDelegable = AppError.define(
  'SUPERVISOR_NOT_DELEGABLE',
  400,
  'the orchistrator is the supervisor and cannot be a delegation target',
)
