import { sql } from '../drizzle-orm.ts'
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
} from '../drizzle-pg-core.ts'
import { timestamps } from './_columns.ts'
import { workspaces } from './workspaces.ts'

/**
 * Chat sessions: display metadata plus the AI SDK UI messages the UI renders. Mastra keeps its
 * own memory thread per session in `mastra_*` tables; this row is what the user owns.
 *
 * `revision` is the optimistic lock: every message save increments it, and a save that names an
 * older revision is refused. `title_locked` records a user rename so later saves keep the title.
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
    messages: jsonb()
      .$type<unknown[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    revision: integer().notNull().default(0),
    archivedAt: timestamp({ withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (t) => [
    index('popagent_sessions_list_idx').on(t.workspaceId, t.updatedAt),
    index('popagent_sessions_updated_idx').on(t.updatedAt),
    check('popagent_sessions_revision_nonnegative', sql`${t.revision} >= 0`),
  ],
)
