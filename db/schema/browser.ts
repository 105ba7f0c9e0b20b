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
