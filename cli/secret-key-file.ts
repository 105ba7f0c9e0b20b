import { randomBytes } from 'node:crypto'
import { ConfigError } from '../compute-host/env.ts'
import { loadOrCreateKeyFile, type KeyFileSpec } from './api-key-file.ts'

/**
 * The vault's key (POPAGENT_SECRET_KEY) when the environment has none. On the embedded database
 * everything lives in the data directory anyway, so the key is generated there (mode 0600, with
 * the API key file's checks) on the first start. Against a real PostgreSQL the key is refused to
 * be made up: a generated key would stay on one machine while the ciphertexts sit in a shared
 * database, and the next host (or a lost disk) could never open them.
 */
export const SECRET_KEY_FILE = 'secret-key'

const SECRET_KEY: KeyFileSpec = {
  file: SECRET_KEY_FILE,
  variable: 'POPAGENT_SECRET_KEY',
  what: 'vault key',
  generate: () => randomBytes(32).toString('base64'),
  problem: (key) =>
    Buffer.from(key, 'base64').length === 32 ? undefined : 'no base64 of exactly 32 bytes',
}

export const MISSING_SECRET_KEY =
  'POPAGENT_SECRET_KEY is required with DATABASE_URL: set it to the base64 of 32 random bytes (openssl rand -base64 32) and keep it safe, it encrypts the secrets vault'

export async function resolveSecretKey(env: {
  POPAGENT_SECRET_KEY?: string | undefined
  DATABASE_URL?: string | undefined
  POPAGENT_DATA_DIR: string
}): Promise<string> {
  if (env.POPAGENT_SECRET_KEY !== undefined) return env.POPAGENT_SECRET_KEY
  if (env.DATABASE_URL !== undefined) throw new ConfigError(MISSING_SECRET_KEY)
  return (await loadOrCreateKeyFile(env.POPAGENT_DATA_DIR, SECRET_KEY)).key
}
