import { sql } from '../../db/drizzle-orm.ts'
import { docs } from '../../db/schema/index.ts'
import type { Doc, DocSummary } from '../contracts/docs.ts'

/** The columns of a summary: everything but the text, whose length is computed in the query. */
export const summaryColumns = {
  id: docs.id,
  workspaceId: docs.workspaceId,
  slug: docs.slug,
  title: docs.title,
  source: docs.source,
  sourcePath: docs.sourcePath,
  indexState: docs.indexState,
  indexError: docs.indexError,
  chunkCount: docs.chunkCount,
  chars: sql<number>`char_length(${docs.body})::int`,
  createdAt: docs.createdAt,
  updatedAt: docs.updatedAt,
}

type SummaryRow = Omit<DocSummary, 'createdAt' | 'updatedAt'> & { createdAt: Date; updatedAt: Date }

export const toSummary = (row: SummaryRow): DocSummary => ({
  ...row,
  chars: Number(row.chars),
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
})

export const toDoc = (row: typeof docs.$inferSelect): Doc => ({
  id: row.id,
  workspaceId: row.workspaceId,
  slug: row.slug,
  title: row.title,
  body: row.body,
  source: row.source,
  sourcePath: row.sourcePath,
  indexState: row.indexState,
  indexError: row.indexError,
  chunkCount: row.chunkCount,
  chars: [...row.body].length,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
})
