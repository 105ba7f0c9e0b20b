import { jsonb, pgTable, text, timestamp } from '../drizzle-pg-core.ts'
import { sessions } from './sessions.ts'

/**
 * The chat turns running now, one row per session (the primary key is what refuses a second
 * concurrent turn in a session, across hosts). A turn runs on the compute host whatever happens
 * to the request that started it, so this row is its durable trace: the session list reads it to
 * say which sessions are running, and it keeps the user's message so a host that stops without
 * saving the turn (a crash) loses nothing. The row goes when the turn's messages are appended;
 * a turn no host runs any more is closed by recovery (compute-host/runs/live-turn-recovery.ts):
 * its host's next start, or any host once `heartbeat_at` is older than the lease.
 *
 * `host` names the host that runs it by its address (hostname and port), so a restarted host
 * knows its own interrupted turns without waiting for the lease.
 */
export const liveTurns = pgTable('popagent_live_turns', {
  sessionId: text()
    .primaryKey()
    .references(() => sessions.id, { onDelete: 'cascade' }),
  turnId: text().notNull(),
  host: text().notNull(),
  /** The user's message, redacted as the turn saves it. */
  message: jsonb().$type<unknown>().notNull(),
  startedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  heartbeatAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
})
