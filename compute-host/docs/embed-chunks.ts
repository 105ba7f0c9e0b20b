import { sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { rowsOf } from '../../db/rows.ts'
import type { Embed } from '../recall/embeddings.ts'

const BATCH = 64

/** Whether this database has the chunk vector table (migration 0014 made it only with pgvector). */
export async function hasDocVectors(db: Db): Promise<boolean> {
  const result = await db.execute(
    sql`select to_regclass('popagent_doc_vectors') is not null as present`,
  )
  return rowsOf<{ present: boolean }>(result)[0]?.present === true
}

/**
 * Embeds document chunks that have no vector for `model` yet, a batch at a time (heading path
 * and text, as full text searches them), until none are left. Chunks are claimed with SKIP
 * LOCKED, so two hosts never embed the same batch; a failing batch throws, and the chunks stay
 * without vectors for the next pass.
 */
export async function embedPendingChunks(db: Db, embed: Embed, model: string): Promise<number> {
  let done = 0
  for (;;) {
    const count = await db.transaction(async (tx) => {
      const pending = rowsOf<{ id: string; workspace_id: string; text: string }>(
        await tx.execute(sql`
          select c.id, c.workspace_id, c.heading_path || E'\n' || c.content as text
          from popagent_doc_chunks c
          where not exists (
            select 1 from popagent_doc_vectors v where v.chunk_id = c.id and v.model = ${model})
          order by c.id limit ${BATCH} for update of c skip locked`),
      )
      if (pending.length === 0) return 0
      const vectors = await embed(pending.map((p) => p.text))
      const rows = pending.map((chunk, at) => [
        chunk.id,
        chunk.workspace_id,
        `[${vectors[at]!.join(',')}]`,
      ])
      await tx.execute(sql`
        insert into popagent_doc_vectors (chunk_id, workspace_id, model, embedding)
        select x->>0, x->>1, ${model}, (x->>2)::vector
        from jsonb_array_elements(${JSON.stringify(rows)}::jsonb) x
        on conflict do nothing`)
      return pending.length
    })
    done += count
    if (count < BATCH) return done
  }
}
