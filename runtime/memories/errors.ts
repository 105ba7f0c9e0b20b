import { AppError } from '../errors.ts'

export const MemoryNotFound = AppError.define('MEMORY_NOT_FOUND', 404, 'memory not found')

/** The owner's memories are theirs: no agent tool or automatic process changes or deletes one. */
export const UserMemoryProtected = AppError.define(
  'USER_MEMORY_PROTECTED',
  403,
  'this memory was written by the user; only the user can change or delete it',
)

/** Agent and evolution facts change only by superseding; the owner may delete them. */
export const FactReadOnly = AppError.define(
  'FACT_READ_ONLY',
  409,
  'agent and evolution facts are read-only: delete the fact or write a memory of your own',
)

/** Automatic fact retention is an autonomy setting, off until the owner turns it on. */
export const FactRetentionOff = AppError.define(
  'FACT_RETENTION_OFF',
  403,
  'automatic fact retention is off (autonomy settings); no fact was stored',
)
