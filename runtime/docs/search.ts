import { sql } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import { rowsOf } from '../../db/rows.ts'
import type { DocSearchInput, DocSearchResult } from '../contracts/docs.ts'
import * as Workspaces from '../workspaces/index.ts'

const EXCERPT_CHARS = 600

/**
 * Full-text search over one workspace's document chunks. The query's words are OR-ed (after
 * English stemming and stop words), not AND-ed: a paraphrased question rarely repeats every word
 * of the passage that answers it, and the cover-density rank still puts chunks holding more of
 * the words, closer together, first. The workspace filter comes from the route, never from the
 * text searched, so one workspace never sees another's documents.
 */
export async function search(
  db: Db,
  workspaceId: string,
  input: DocSearchInput,
): Promise<DocSearchResult> {
  await Workspaces.assertExists(db, workspaceId)
  type Row = {
    doc_id: string
    slug: string
    title: string
    heading_path: string
    content: string
    score: number
  }
  const result = await db.execute(sql`
    with q as (
      select nullif(replace(plainto_tsquery('english', ${input.query})::text, '&', '|'), '')::tsquery as query
    )
    select c.doc_id, d.slug, d.title, c.heading_path, c.content,
           ts_rank_cd(c.tsv, q.query, 1) as score
    from q, popagent_doc_chunks c
    join popagent_docs d on d.id = c.doc_id
    where q.query is not null and c.workspace_id = ${workspaceId} and c.tsv @@ q.query
    order by score desc, c.doc_id, c.ordinal
    limit ${input.limit}
  `)
  return {
    method: 'full text (English stemming, any of the words, cover-density rank)',
    results: rowsOf<Row>(result).map((r) => ({
      docId: r.doc_id,
      slug: r.slug,
      title: r.title,
      headingPath: r.heading_path,
      excerpt:
        r.content.length > EXCERPT_CHARS ? `${r.content.slice(0, EXCERPT_CHARS)}…` : r.content,
      score: Number(r.score),
    })),
  }
}
