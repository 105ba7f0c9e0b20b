import { embedMany } from 'ai'
import { sql } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import { rowsOf } from '../../db/rows.ts'
import type { GatewayModels } from '../models/gateway-models.ts'
import { ensureVectorIndex } from './vector-index.ts'

const BATCH = 64

export type Embed = (values: string[], signal?: AbortSignal) => Promise<number[][]>

/** Embeddings through the gateway's `/v1/embeddings`, with the model the memory settings name. */
export function gatewayEmbedder(models: GatewayModels, model: string): Embed {
  return async (values, signal) => {
    const { embeddings } = await embedMany({
      model: models.embeddingModel(model),
      values,
      maxRetries: 0,
      ...(signal && { abortSignal: signal }),
    })
    return embeddings
  }
}

/**
 * Embeds recall items that have no vector for `model` yet, a batch at a time, until none are
 * left. Rows are claimed with SKIP LOCKED so two hosts never embed the same batch.
 */
export async function embedPending(db: Db, embed: Embed, model: string): Promise<number> {
  let done = 0
  for (;;) {
    const count = await db.transaction(async (tx) => {
      const pending = rowsOf<{ id: string; content: string }>(
        await tx.execute(sql`
          select i.id, i.content from popagent_recall_items i
          where not exists (
            select 1 from popagent_recall_vectors v where v.item_id = i.id and v.model = ${model})
          order by i.id limit ${BATCH} for update of i skip locked`),
      )
      if (pending.length === 0) return 0
      const vectors = await embed(pending.map((p) => p.content))
      await ensureVectorIndex(tx as unknown as Db, model, vectors[0]!.length)
      const rows = pending.map((item, at) => [item.id, `[${vectors[at]!.join(',')}]`])
      await tx.execute(sql`
        insert into popagent_recall_vectors (item_id, model, embedding)
        select x->>0, ${model}, (x->>1)::vector
        from jsonb_array_elements(${JSON.stringify(rows)}::jsonb) x
        on conflict do nothing`)
      return pending.length
    })
    done += count
    if (count < BATCH) return done
  }
}
