import { sql } from '../drizzle-orm.ts'
import { check, index, integer, jsonb, pgTable, text, timestamp } from '../drizzle-pg-core.ts'
import { timestamps } from './_columns.ts'
import { sessions } from './sessions.ts'

/**
 * Per-turn undo (B3): popagent's own content store, never the user's git index, stash or refs.
 * File contents by their SHA-256, stored once however many turns keep them, as text so the same
 * SQL runs on PostgreSQL and PGlite: encrypted, `v1:` + base64 (compute-host/undo/blob-cipher.ts),
 * or plain base64 in rows written before encryption. `last_used_at` is touched whenever a snapshot keeps a
 * content again; contents no turn refers to are dropped some hours after their last use.
 */
export const turnBlobs = pgTable(
  'popagent_turn_blobs',
  {
    hash: text().primaryKey(),
    size: integer().notNull(),
    content: text().notNull(),
    lastUsedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    index('popagent_turn_blobs_last_used_idx').on(t.lastUsedAt),
    check('popagent_turn_blobs_size_nonnegative', sql`${t.size} >= 0`),
  ],
)

/**
 * One chat turn that wrote (through the file tools or the shell): the repository it worked in,
 * its change set (each file's state before and after the turn, by content hash) once the turn
 * ended, and the undo's per-file outcome once undone. `state` goes recording → recorded →
 * undoing → undone (or `failed` when the turn's after-state could not be recorded).
 */
export const turnChanges = pgTable(
  'popagent_turn_changes',
  {
    turnId: text().primaryKey(),
    sessionId: text()
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    workspaceId: text().notNull(),
    /** The repository, relative to the workspace root, as the turn resolved it. */
    repository: text().notNull(),
    state: text().notNull(),
    files: jsonb().$type<unknown[]>(),
    /** What the snapshot could not keep or see (sizes over the caps, a truncated walk). */
    limits: jsonb().$type<Record<string, unknown>>(),
    undo: jsonb().$type<unknown[]>(),
    error: text(),
    ...timestamps,
  },
  (t) => [
    index('popagent_turn_changes_session_idx').on(t.sessionId),
    check(
      'popagent_turn_changes_state',
      sql`${t.state} in ('recording', 'recorded', 'failed', 'undoing', 'undone')`,
    ),
  ],
)
