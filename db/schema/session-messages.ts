import { integer, jsonb, pgTable, primaryKey, text } from '../drizzle-pg-core.ts'
import { sessions } from './sessions.ts'

/**
 * A session's UI messages, one row each, in conversation order (`position` from 0). They were
 * one jsonb array on the session row until migration 0018: a turn then rewrote the whole
 * conversation to append two messages (65–125 ms at 100 coding turns, 2 MB) and every read of
 * the row decompressed it. Now a turn inserts its rows and the session row keeps the count.
 */
export const sessionMessages = pgTable(
  'popagent_session_messages',
  {
    sessionId: text()
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    position: integer().notNull(),
    message: jsonb().$type<unknown>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.sessionId, t.position] })],
)
