import type { Db } from '../../db/index.ts'
import type { CreateSecretInput, SecretView } from '../../runtime/contracts/secrets.ts'
import type { Redactor } from '../../runtime/redaction.ts'
import { VaultUnavailable } from '../../runtime/secrets/errors.ts'
import * as Secrets from '../../runtime/secrets/index.ts'
import { openKeyring, type Keyring } from '../../runtime/secrets/keyring.ts'
import { ConfigError, type HostEnv } from '../env.ts'
import type { TaskExecutor } from '../tasks/runner.ts'

/**
 * The host's vault: the keyring and the writes that need it, each keeping the host's one
 * redactor in step before it answers. A value is redacted from the moment it is stored (and a
 * rotated secret's old value stays redacted for the life of the process, as text written before
 * the rotation may still quote it); a deleted one is forgotten. Without POPAGENT_SECRET_KEY the
 * vault is off and every write is a 503 that says so.
 *
 * Other hosts on the same database catch up before their next turn, task attempt or hook test
 * (`sync`, or for a chat turn its claim's check of `known`: docs/hooks-and-secrets.md).
 */
export type Vault = {
  readonly available: boolean
  create(input: CreateSecretInput): Promise<SecretView>
  rotate(id: string, value: string): Promise<SecretView>
  remove(id: string): Promise<void>
  /** A value for a place its binding allows; never for an answer or a log line. */
  reveal(id: string): Promise<string>
  /** The environment a command hook's bindings give it (empty without bindings). */
  hookEnv(hookId: string): Promise<Record<string, string>>
  /**
   * Catches up with writes another host made to the same database: new or rotated secrets join
   * the redactor, deleted ones leave it. One small query when nothing changed; the host calls it
   * before every task attempt and hook test, and a chat turn when its claim finds the vault moved
   * on (compute-host/runs/claim-redacted.ts). Answers whether it changed anything.
   */
  sync(): Promise<boolean>
  /**
   * The secrets this host redacts, id → version, as of its last sync or write; undefined when the
   * vault is off (it has no key, so it never catches up). A write that keeps redacted text can
   * check these in its own statement instead of syncing first (the chat turn's claim).
   */
  known(): ReadonlyMap<string, number> | undefined
}

export async function openVault(options: {
  env: Pick<HostEnv, 'POPAGENT_SECRET_KEY' | 'POPAGENT_SECRET_KEYS_PREVIOUS'>
  db: Db
  redactor: Redactor
}): Promise<Vault> {
  const { db, redactor } = options
  const keyring = options.env.POPAGENT_SECRET_KEY
    ? await openKeyring(
        options.env.POPAGENT_SECRET_KEY,
        options.env.POPAGENT_SECRET_KEYS_PREVIOUS,
      ).catch((error: unknown) => {
        throw new ConfigError((error as Error).message)
      })
    : undefined
  // Each secret this host has redacted, at the version it knows.
  const known = new Map<string, number>()
  await loadIntoRedactor(db, keyring, redactor, known)
  const need = (): Keyring => {
    if (!keyring) throw new VaultUnavailable()
    return keyring
  }
  const previous = new Map<string, string[]>()
  return {
    available: keyring !== undefined,
    async create(input) {
      const view = await Secrets.create(db, need(), input)
      redactor.set(view.id, [input.value])
      known.set(view.id, view.version)
      return view
    },
    async rotate(id, value) {
      const ring = need()
      const old = await Secrets.reveal(ring, await Secrets.rowOf(db, id)).catch(() => undefined)
      const kept = [...(previous.get(id) ?? []), ...(old === undefined ? [] : [old])]
      previous.set(id, kept)
      // Redacted before it is stored: nothing can log the new value unredacted meanwhile.
      redactor.set(id, [value, ...kept])
      const view = await Secrets.rotate(db, ring, id, value)
      known.set(id, view.version)
      return view
    },
    async remove(id) {
      await Secrets.remove(db, id)
      previous.delete(id)
      known.delete(id)
      redactor.remove(id)
    },
    async sync() {
      if (!keyring) return false
      const now = await Secrets.versions(db)
      let changed = false
      for (const [id] of known) {
        if (!now.has(id)) {
          changed = true
          known.delete(id)
          previous.delete(id)
          redactor.remove(id)
        }
      }
      for (const [id, version] of now) {
        if (known.get(id) === version) continue
        changed = true
        const value = await Secrets.reveal(keyring, await Secrets.rowOf(db, id))
        const old = previous.get(id) ?? []
        redactor.set(id, [value, ...old])
        previous.set(id, [...old, value])
        known.set(id, version)
      }
      return changed
    },
    known: () => (keyring ? new Map(known) : undefined),
    async reveal(id) {
      return Secrets.reveal(need(), await Secrets.rowOf(db, id))
    },
    async hookEnv(hookId) {
      const bound = await Secrets.hookEnvRows(db, hookId)
      if (bound.length === 0) return {}
      const ring = need()
      const env: Record<string, string> = {}
      for (const { row, envName } of bound) env[envName] = await Secrets.reveal(ring, row)
      return env
    },
  }
}

/**
 * Every stored value into the redactor, before the host serves anything. A row this key cannot
 * open stops the start: running on would leave that value unredacted everywhere.
 */
async function loadIntoRedactor(
  db: Db,
  keyring: Keyring | undefined,
  redactor: Redactor,
  known: Map<string, number>,
) {
  const rows = await Secrets.allRows(db)
  if (rows.length === 0) return
  if (!keyring) {
    throw new ConfigError(
      `POPAGENT_SECRET_KEY is not set but the database holds ${rows.length} vault secret(s): start with the key that encrypted them`,
    )
  }
  const failed: string[] = []
  for (const row of rows) {
    try {
      redactor.set(row.id, [await Secrets.reveal(keyring, row)])
      known.set(row.id, row.version)
    } catch {
      failed.push(row.name)
    }
  }
  if (failed.length > 0) {
    throw new ConfigError(
      `POPAGENT_SECRET_KEY (with POPAGENT_SECRET_KEYS_PREVIOUS) does not open ${failed.length} of ${rows.length} vault secret(s) (${failed.slice(0, 5).join(', ')}): set the key that encrypted them, or the earlier key in POPAGENT_SECRET_KEYS_PREVIOUS`,
    )
  }
}

/** A task executor that catches up with other hosts' vault writes before each attempt. */
export function withVaultSync(vault: Pick<Vault, 'sync'>, execute: TaskExecutor): TaskExecutor {
  return async (task, context) => {
    await vault.sync()
    return execute(task, context)
  }
}
