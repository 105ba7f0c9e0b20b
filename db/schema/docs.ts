import { sql } from '../drizzle-orm.ts'
import { check, index, integer, pgTable, text, uniqueIndex } from '../drizzle-pg-core.ts'
import { GIN_DIRECT_UPDATES, tsvector } from './full-text.ts'
import {
  DOC_INDEX_STATES,
  DOC_MAX_CHARS,
  DOC_SLUG_PATTERN,
  DOC_SOURCES,
  type DocIndexState,
  type DocSource,
} from '../doc-enums.ts'
import { timestamps } from './_columns.ts'
import { workspaces } from './workspaces.ts'

const listOf = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(', '))

/**
 * A workspace's documentation (W7): Markdown with a title and a path-like slug, unique within the
 * workspace. An imported document remembers the repository path it came from, so a re-import
 * updates it in place. `content_sha256` is the text's hash; the indexer compares it with
 * `indexed_sha256` and re-chunks only documents whose text changed.
 */
export const docs = pgTable(
  'popagent_docs',
  {
    id: text().primaryKey(),
    workspaceId: text()
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    slug: text().notNull(),
    title: text().notNull(),
    body: text().notNull(),
    source: text().$type<DocSource>().notNull(),
    sourcePath: text(),
    contentSha256: text().notNull(),
    indexState: text().$type<DocIndexState>().notNull().default('pending'),
    indexError: text(),
    indexedSha256: text(),
    chunkCount: integer().notNull().default(0),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('popagent_docs_workspace_slug_idx').on(t.workspaceId, t.slug),
    index('popagent_docs_index_state_idx').on(t.indexState),
    check('popagent_docs_source', sql`${t.source} in (${listOf(DOC_SOURCES)})`),
    check('popagent_docs_index_state', sql`${t.indexState} in (${listOf(DOC_INDEX_STATES)})`),
    check('popagent_docs_slug_shape', sql`${t.slug} ~ ${sql.raw(`'${DOC_SLUG_PATTERN}'`)}`),
    check(
      'popagent_docs_body_length',
      sql`char_length(${t.body}) <= ${sql.raw(String(DOC_MAX_CHARS))}`,
    ),
  ],
)

/**
 * The search units of a document: one Markdown section (or a slice of a long one) with the path
 * of headings above it, which is also searched. `workspace_id` is copied from the document so
 * every search filters by it in the same index scan. The vector leg lives in
 * `popagent_doc_vectors`, created by the migration only where pgvector is available.
 */
export const docChunks = pgTable(
  'popagent_doc_chunks',
  {
    id: text().primaryKey(),
    docId: text()
      .notNull()
      .references(() => docs.id, { onDelete: 'cascade' }),
    workspaceId: text().notNull(),
    ordinal: integer().notNull(),
    headingPath: text().notNull(),
    content: text().notNull(),
    tsv: tsvector().generatedAlwaysAs(sql`to_tsvector('english', heading_path || ' ' || content)`),
  },
  (t) => [
    index('popagent_doc_chunks_tsv_idx').using('gin', t.tsv).with(GIN_DIRECT_UPDATES),
    index('popagent_doc_chunks_workspace_idx').on(t.workspaceId),
    index('popagent_doc_chunks_doc_idx').on(t.docId, t.ordinal),
  ],
)
