import { sql } from '../drizzle-orm.ts'
import { check, index, integer, pgTable, text, timestamp, uniqueIndex } from '../drizzle-pg-core.ts'
import { timestamps } from './_columns.ts'

/**
 * The secrets vault (X4). A value is stored only as AES-256-GCM ciphertext (runtime/secrets/),
 * bound to this row's id, name and version by its additional data; `key_id` names the key that
 * wrote it, so rows survive a key rotation until re-encrypted. `fingerprint` is a keyed MAC of
 * the value (tells two values apart, reveals nothing without the key). No SQL-side crypto.
 */
export const secrets = pgTable(
  'popagent_secrets',
  {
    id: text().primaryKey(),
    name: text().notNull(),
    version: integer().notNull(),
    keyId: text().notNull(),
    nonce: text().notNull(),
    ciphertext: text().notNull(),
    fingerprint: text().notNull(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('popagent_secrets_name_idx').on(t.name),
    index('popagent_secrets_key_idx').on(t.keyId),
    check('popagent_secrets_version_positive', sql`${t.version} >= 1`),
  ],
)

/**
 * Where a secret's value may go: an HTTPS origin (`kind = 'origin'`, `target` the normalised
 * origin) or a hook's environment (`kind = 'hook_env'`, `target` the hook id, `env_name` the
 * variable). Nothing reaches a place without a row here.
 */
export const secretBindings = pgTable(
  'popagent_secret_bindings',
  {
    id: text().primaryKey(),
    secretId: text()
      .notNull()
      .references(() => secrets.id, { onDelete: 'cascade' }),
    kind: text().$type<'origin' | 'hook_env'>().notNull(),
    target: text().notNull(),
    envName: text(),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('popagent_secret_bindings_target_idx').on(t.secretId, t.kind, t.target),
    check('popagent_secret_bindings_kind', sql`${t.kind} in ('origin', 'hook_env')`),
    check(
      'popagent_secret_bindings_env_name',
      sql`(${t.kind} = 'hook_env') = (${t.envName} is not null)`,
    ),
  ],
)
