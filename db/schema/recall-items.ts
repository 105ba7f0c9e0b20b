import { sql } from '../drizzle-orm.ts'
import { check, index, pgTable, text, timestamp } from '../drizzle-pg-core.ts'
import { GIN_DIRECT_UPDATES, tsvector } from './full-text.ts'
import { RECALL_KINDS, type RecallKind } from '../memory-enums.ts'
import { memories } from './memories.ts'
import { sessions } from './sessions.ts'

const kinds = sql.raw(RECALL_KINDS.map((k) => `'${k}'`).join(', '))

/**
 * What cross-session recall searches (X2): the live memories, and a span (the user's text and the
 * final answer, redacted) of each finished turn. Rows go with their session or memory (cascade).
 * `tsv` is the full-text leg ('simple': identifiers and error codes are not stemmed away); the
 * vector leg lives in `popagent_recall_vectors`, which migration 0010 creates only where pgvector
 * is available, so it stays out of this schema.
 */
export const recallItems = pgTable(
  'popagent_recall_items',
  {
    id: text().primaryKey(),
    kind: text().$type<RecallKind>().notNull(),
    sessionId: text().references(() => sessions.id, { onDelete: 'cascade' }),
    memoryId: text().references(() => memories.id, { onDelete: 'cascade' }),
    turnId: text(),
    content: text().notNull(),
    tsv: tsvector().generatedAlwaysAs(sql`to_tsvector('simple', content)`),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    check('popagent_recall_items_kind', sql`${t.kind} in (${kinds})`),
    index('popagent_recall_items_tsv_idx').using('gin', t.tsv).with(GIN_DIRECT_UPDATES),
    index('popagent_recall_items_session_idx').on(t.sessionId),
    index('popagent_recall_items_memory_idx').on(t.memoryId),
  ],
)
