import { sql } from '../drizzle-orm.ts'
import { boolean, check, index, integer, pgTable, text, timestamp } from '../drizzle-pg-core.ts'
import { timestamps } from './_columns.ts'
import { workspaces } from './workspaces.ts'

/**
 * Chat sessions: display metadata and the count of the AI SDK UI messages the UI renders (the
 * messages themselves are rows of `popagent_session_messages`). Mastra keeps its own memory thread
 * per session in `mastra_*` tables; this row is what the user owns.
 *
 * `revision` is the optimistic lock: every message save increments it, and a save that names an
 * older revision is refused. `title_locked` records a user rename so later saves keep the title.
 * `message_count` moves with every append or save, under the same row lock, so a turn knows
 * whether it is the session's first without reading the conversation.
 */
export const sessions = pgTable(
  'popagent_sessions',
  {
    id: text().primaryKey(),
    workspaceId: text()
      .notNull()
      .references(() => workspaces.id),
    title: text().notNull(),
    titleLocked: boolean().notNull().default(false),
    messageCount: integer().notNull().default(0),
    revision: integer().notNull().default(0),
    archivedAt: timestamp({ withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (t) => [
    index('popagent_sessions_list_idx').on(t.workspaceId, t.updatedAt),
    index('popagent_sessions_updated_idx').on(t.updatedAt),
    check('popagent_sessions_revision_nonnegative', sql`${t.revision} >= 0`),
    check('popagent_sessions_message_count_nonnegative', sql`${t.messageCount} >= 0`),
  ],
)
