import { sql } from '../drizzle-orm.ts'
import { check, index, integer, pgTable, text, timestamp, uniqueIndex } from '../drizzle-pg-core.ts'
import { sessions } from './sessions.ts'
import { tasks } from './tasks.ts'

/**
 * One browser session per chat session or task (compute-host/browser/sessions.ts): the MCP
 * session on the owner's browser server that holds its pages, who controls it (`agent`, or
 * `human` while the owner has taken it over: agents' interactive calls are then refused), and
 * when it closed and why (the session ended or was archived, the task ended, the server was
 * lost, the host stopped). At most one open row per chat session and per task.
 */
export const browserSessions = pgTable(
  'popagent_browser_sessions',
  {
    id: text().primaryKey(),
    chatSessionId: text().references(() => sessions.id, { onDelete: 'cascade' }),
    taskId: text().references(() => tasks.id, { onDelete: 'cascade' }),
    /** The server's `Mcp-Session-Id`, while connected. */
    mcpSessionId: text(),
    controller: text().$type<'agent' | 'human'>().notNull().default('agent'),
    callCount: integer().notNull().default(0),
    lastOperation: text(),
    openedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    lastCallAt: timestamp({ withTimezone: true, mode: 'date' }),
    closedAt: timestamp({ withTimezone: true, mode: 'date' }),
    closeReason: text(),
  },
  (t) => [
    check(
      'popagent_browser_sessions_owner',
      sql`(${t.chatSessionId} is null) <> (${t.taskId} is null)`,
    ),
    check('popagent_browser_sessions_controller', sql`${t.controller} in ('agent', 'human')`),
    uniqueIndex('popagent_browser_sessions_open_chat')
      .on(t.chatSessionId)
      .where(sql`${t.closedAt} is null`),
    uniqueIndex('popagent_browser_sessions_open_task')
      .on(t.taskId)
      .where(sql`${t.closedAt} is null`),
    index('popagent_browser_sessions_opened_idx').on(t.openedAt),
  ],
)

/**
 * A recording of a browser session (compute-host/browser/recordings.ts): a Playwright trace the
 * owner started, packed into one zip under POPAGENT_DATA_DIR/browser-recordings once stopped.
 * `recording` while the server records, `ready` with the file's size and digest, `failed` with
 * why. Rows and files past the retention are deleted by the host's hourly sweep. Holds nothing
 * typed into a page: the host stops a recording before any secret fill.
 */
export const browserRecordings = pgTable(
  'popagent_browser_recordings',
  {
    id: text().primaryKey(),
    browserSessionId: text()
      .notNull()
      .references(() => browserSessions.id, { onDelete: 'cascade' }),
    kind: text().$type<'trace'>().notNull().default('trace'),
    state: text().$type<'recording' | 'ready' | 'failed'>().notNull().default('recording'),
    bytes: integer(),
    sha256: text(),
    startedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    stoppedAt: timestamp({ withTimezone: true, mode: 'date' }),
    stopReason: text(),
    error: text(),
  },
  (t) => [
    check('popagent_browser_recordings_kind', sql`${t.kind} in ('trace')`),
    check('popagent_browser_recordings_state', sql`${t.state} in ('recording', 'ready', 'failed')`),
    uniqueIndex('popagent_browser_recordings_active')
      .on(t.browserSessionId)
      .where(sql`${t.state} = 'recording'`),
    index('popagent_browser_recordings_started_idx').on(t.startedAt),
  ],
)
