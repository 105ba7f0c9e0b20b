import { openDatabases } from '../../compute-host/database/open.ts'
import { ConfigError, parseHostEnv } from '../../compute-host/env.ts'
import { createLogger } from '../../compute-host/log.ts'
import { rekeyBatch } from '../../runtime/secrets/index.ts'
import { openKeyring } from '../../runtime/secrets/keyring.ts'
import { resolveSecretKey } from '../secret-key-file.ts'

/**
 * `popagent secrets-rekey`: re-encrypts every vault secret under POPAGENT_SECRET_KEY, reading
 * rows written with the keys in POPAGENT_SECRET_KEYS_PREVIOUS. Batches of 100, each row updated
 * only if unchanged since read, so it can run beside live hosts (given both keys) and resume
 * after a stop. Drop the old key from POPAGENT_SECRET_KEYS_PREVIOUS once it reports 0 left.
 */
export async function secretsRekey(source: Record<string, string | undefined>) {
  const env = parseHostEnv(source)
  const key = await resolveSecretKey(env)
  const keyring = await openKeyring(key, env.POPAGENT_SECRET_KEYS_PREVIOUS).catch(
    (error: unknown) => {
      throw new ConfigError((error as Error).message)
    },
  )
  const log = createLogger({ secrets: [env.DATABASE_URL, env.OBSERVABILITY_DATABASE_URL, key] })
  const databases = await openDatabases(env, log)
  try {
    let total = 0
    for (let done; (done = await rekeyBatch(databases.application.db, keyring)) > 0;) {
      total += done
    }
    console.log(`re-encrypted ${total} secret(s) under key ${keyring.current.id}`)
  } finally {
    await databases.close()
  }
}
