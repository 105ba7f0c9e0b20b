import { sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { rowsOf } from '../../db/rows.ts'
import type { DocSearchHit } from '../contracts/docs.ts'

const EXCERPT_CHARS = 600

/** One chunk found by a search leg, with what a hit shows. */
export type DocChunkRow = {
  chunk_id: string
  doc_id: string
  slug: string
  title: string
  heading_path: string
  content: string
  score: number | string
}

/**
 * The full-text leg of documentation search, over one workspace's chunks. The query's words are
 * OR-ed (after English stemming and stop words), not AND-ed: a paraphrased question rarely repeats
 * every word of the passage that answers it, and the cover-density rank still puts chunks holding
 * more of the words, closer together, first. The workspace filter comes from the route or the run,
 * never from the text searched, so one workspace never sees another's documents.
 */
export async function searchDocText(
  db: Db,
  workspaceId: string,
  query: string,
  limit: number,
): Promise<DocChunkRow[]> {
  const result = await db.execute(sql`
    with q as (
      select nullif(replace(plainto_tsquery('english', ${query})::text, '&', '|'), '')::tsquery as query
    )
    select c.id as chunk_id, c.doc_id, d.slug, d.title, c.heading_path, c.content,
           ts_rank_cd(c.tsv, q.query, 1) as score
    from q, popagent_doc_chunks c
    join popagent_docs d on d.id = c.doc_id
    where q.query is not null and c.workspace_id = ${workspaceId} and c.tsv @@ q.query
    order by score desc, c.doc_id, c.ordinal
    limit ${limit}
  `)
  return rowsOf<DocChunkRow>(result)
}

/** A found chunk as the API and the agents see it: where it is, and a bounded excerpt. */
export const toHit = (r: DocChunkRow, score = Number(r.score)): DocSearchHit => ({
  docId: r.doc_id,
  slug: r.slug,
  title: r.title,
  headingPath: r.heading_path,
  excerpt: r.content.length > EXCERPT_CHARS ? `${r.content.slice(0, EXCERPT_CHARS)}…` : r.content,
  score,
})
