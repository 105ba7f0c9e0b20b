import { and, asc, eq, inArray, ne, sql, type SQL } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { hooks, secretBindings, secrets } from '../../db/schema/index.ts'
import type { CreateSecretInput, SecretBindingsInput, SecretView } from '../contracts/secrets.ts'
import { createId } from '../ids.ts'
import { pgErrorCode, PG_UNIQUE_VIOLATION } from '../pg-errors.ts'
import { fingerprint, open, seal } from './cipher.ts'
import { HookNotFound } from '../hooks/errors.ts'
import { SecretKeyUnknown, SecretNameTaken, SecretNotFound } from './errors.ts'
import type { Keyring } from './keyring.ts'
import { normaliseOrigin } from './origin.ts'

/**
 * The secrets vault's domain functions. Encrypting and decrypting need the keyring, which only
 * the compute host holds; listing and binding need the database alone. Nothing here returns a
 * value except `reveal`, which the host uses for its redactor and for the places a binding
 * allows, never for an answer.
 */
export type SecretRow = typeof secrets.$inferSelect

export async function list(db: Db): Promise<SecretView[]> {
  const rows = await db.select().from(secrets).orderBy(asc(secrets.name))
  return withBindings(db, rows)
}

export async function get(db: Db, id: string): Promise<SecretView> {
  const [row] = await db.select().from(secrets).where(eq(secrets.id, id))
  if (!row) throw new SecretNotFound({ id })
  return (await withBindings(db, [row]))[0]!
}

export async function create(
  db: Db,
  keyring: Keyring,
  input: CreateSecretInput,
): Promise<SecretView> {
  const who = { id: createId('secret'), name: input.name, version: 1 }
  const row = {
    ...who,
    keyId: keyring.current.id,
    ...(await seal(keyring.current, who, input.value)),
    fingerprint: await fingerprint(keyring.current, input.value),
  }
  try {
    await db.insert(secrets).values(row)
  } catch (error) {
    if (pgErrorCode(error) === PG_UNIQUE_VIOLATION) throw new SecretNameTaken({ name: input.name })
    throw error
  }
  return get(db, who.id)
}

/**
 * A new value under a new version. The update is conditional on the version read, so two
 * rotations at once cannot both win with ciphertexts sealed for the same version.
 */
export async function rotate(
  db: Db,
  keyring: Keyring,
  id: string,
  value: string,
): Promise<SecretView> {
  const [row] = await db.select().from(secrets).where(eq(secrets.id, id))
  if (!row) throw new SecretNotFound({ id })
  const who = { id, name: row.name, version: row.version + 1 }
  const updated = await db
    .update(secrets)
    .set({
      version: who.version,
      keyId: keyring.current.id,
      ...(await seal(keyring.current, who, value)),
      fingerprint: await fingerprint(keyring.current, value),
      updatedAt: new Date(),
    })
    .where(and(eq(secrets.id, id), eq(secrets.version, row.version)))
    .returning({ id: secrets.id })
  if (updated.length === 0)
    throw new SecretNotFound({ id }, { message: 'the secret changed or was deleted meanwhile' })
  return get(db, id)
}

/** Replaces the secret's origins; each is normalised (origin.ts) or the whole call is refused. */
export async function bind(db: Db, id: string, input: SecretBindingsInput): Promise<SecretView> {
  const origins = [...new Set(input.origins.map(normaliseOrigin))]
  await db.transaction(async (tx) => {
    const [row] = await tx
      .select({ id: secrets.id })
      .from(secrets)
      .where(eq(secrets.id, id))
      .for('update')
    if (!row) throw new SecretNotFound({ id })
    await tx
      .delete(secretBindings)
      .where(and(eq(secretBindings.secretId, id), eq(secretBindings.kind, 'origin')))
    if (origins.length > 0) {
      await tx.insert(secretBindings).values(
        origins.map((target) => ({
          id: createId('secretBinding'),
          secretId: id,
          kind: 'origin' as const,
          target,
        })),
      )
    }
    if (!input.hookEnv) return
    const hookIds = [...new Set(input.hookEnv.map((b) => b.hookId))]
    const found = hookIds.length
      ? await tx
          .select({ id: hooks.id })
          .from(hooks)
          .where(and(inArray(hooks.id, hookIds), eq(hooks.kind, 'command')))
      : []
    const missing = hookIds.filter((h) => !found.some((f) => f.id === h))
    if (missing.length > 0) {
      throw new HookNotFound(
        { ids: missing },
        { message: 'only an existing command hook can get a secret in its environment' },
      )
    }
    await tx
      .delete(secretBindings)
      .where(and(eq(secretBindings.secretId, id), eq(secretBindings.kind, 'hook_env')))
    if (input.hookEnv.length === 0) return
    await tx.insert(secretBindings).values(
      input.hookEnv.map((b) => ({
        id: createId('secretBinding'),
        secretId: id,
        kind: 'hook_env' as const,
        target: b.hookId,
        envName: b.envName,
      })),
    )
  })
  return get(db, id)
}

export async function remove(db: Db, id: string): Promise<void> {
  const deleted = await db.delete(secrets).where(eq(secrets.id, id)).returning({ id: secrets.id })
  if (deleted.length === 0) throw new SecretNotFound({ id })
}

/** The plaintext of one row, with the key that wrote it; a SecretIntegrityError otherwise. */
export async function reveal(keyring: Keyring, row: SecretRow): Promise<string> {
  const key = keyring.byId.get(row.keyId)
  if (!key) throw new SecretKeyUnknown({ id: row.id, name: row.name, keyId: row.keyId })
  return open(key, row, row)
}

export async function rowOf(db: Db, id: string): Promise<SecretRow> {
  const [row] = await db.select().from(secrets).where(eq(secrets.id, id))
  if (!row) throw new SecretNotFound({ id })
  return row
}

export const allRows = (db: Db): Promise<SecretRow[]> => db.select().from(secrets)

/**
 * Re-encrypts up to `batch` rows that another key wrote under the current key: a fresh nonce,
 * the same additional data and version. Each row is updated only if it is still the one read,
 * so a rotation meanwhile is not overwritten. Returns how many it re-encrypted; call until 0.
 */
export async function rekeyBatch(db: Db, keyring: Keyring, batch = 100): Promise<number> {
  const rows = await db
    .select()
    .from(secrets)
    .where(ne(secrets.keyId, keyring.current.id))
    .orderBy(asc(secrets.id))
    .limit(batch)
  let done = 0
  for (const row of rows) {
    const value = await reveal(keyring, row)
    const updated = await db
      .update(secrets)
      .set({
        keyId: keyring.current.id,
        ...(await seal(keyring.current, row, value)),
        updatedAt: new Date(),
      })
      .where(
        and(eq(secrets.id, row.id), eq(secrets.version, row.version), eq(secrets.keyId, row.keyId)),
      )
      .returning({ id: secrets.id })
    done += updated.length
  }
  return done
}

async function withBindings(db: Db, rows: SecretRow[]): Promise<SecretView[]> {
  const ids = rows.map((r) => r.id)
  const bindings = ids.length
    ? await db
        .select()
        .from(secretBindings)
        .where(inArray(secretBindings.secretId, ids))
        .orderBy(asc(secretBindings.target))
    : []
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    version: row.version,
    keyId: row.keyId,
    fingerprint: row.fingerprint,
    origins: bindings
      .filter((b) => b.secretId === row.id && b.kind === 'origin')
      .map((b) => b.target),
    hookEnv: bindings
      .filter((b) => b.secretId === row.id && b.kind === 'hook_env')
      .map((b) => ({ hookId: b.target, envName: b.envName! })),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }))
}

/** The secrets bound to a hook's environment: each row with the variable it goes into. */
export async function hookEnvRows(
  db: Db,
  hookId: string,
): Promise<Array<{ row: SecretRow; envName: string }>> {
  const rows = await db
    .select({ row: secrets, envName: secretBindings.envName })
    .from(secretBindings)
    .innerJoin(secrets, eq(secrets.id, secretBindings.secretId))
    .where(and(eq(secretBindings.kind, 'hook_env'), eq(secretBindings.target, hookId)))
  return rows.map((r) => ({ row: r.row, envName: r.envName! }))
}

/** Every secret's id and version: how a host tells whether another host wrote to the vault. */
export async function versions(db: Db): Promise<Map<string, number>> {
  const rows = await db.select({ id: secrets.id, version: secrets.version }).from(secrets)
  return new Map(rows.map((r) => [r.id, r.version]))
}

/**
 * A condition that holds when the stored secrets are exactly `known` (id → version), for a write
 * that must not happen with a redactor behind the vault: the write checks it in its own statement
 * instead of the vault's versions being read first. JSONB equality ignores key order.
 */
export function versionsAre(known: ReadonlyMap<string, number>): SQL {
  const stored = sql`(select coalesce(jsonb_object_agg(${secrets.id}, ${secrets.version}), '{}'::jsonb) from ${secrets})`
  return sql`${stored} = ${JSON.stringify(Object.fromEntries(known))}::jsonb`
}
