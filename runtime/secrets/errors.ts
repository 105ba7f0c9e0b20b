import { AppError } from '../errors.ts'

/** Errors of the secrets vault. None of them ever carries a value or any part of one. */
export const SecretNotFound = AppError.define('SECRET_NOT_FOUND', 404, 'secret not found')
export const SecretNameTaken = AppError.define(
  'SECRET_NAME_TAKEN',
  409,
  'a secret with this name exists',
)
export const SecretKeyInvalid = AppError.define(
  'SECRET_KEY_INVALID',
  500,
  'POPAGENT_SECRET_KEY is not usable',
)
/** The vault has no key on this host: nothing can be encrypted or decrypted. */
export const VaultUnavailable = AppError.define(
  'VAULT_UNAVAILABLE',
  503,
  'the secrets vault is off: the compute host has no POPAGENT_SECRET_KEY',
)
/**
 * A row that does not decrypt: its ciphertext or nonce changed, it was moved to another secret's
 * row or name (the additional data no longer matches), or the key is not the one that wrote it.
 */
export const SecretIntegrityError = AppError.define(
  'SECRET_INTEGRITY_ERROR',
  500,
  'the secret does not decrypt: its ciphertext, its identity or the key does not match',
)
/** The row names a key this host does not hold (neither the current nor a previous one). */
export const SecretKeyUnknown = AppError.define(
  'SECRET_KEY_UNKNOWN',
  500,
  'the secret was encrypted with a key this host does not have',
)
