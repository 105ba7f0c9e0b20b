import { embedMany } from 'ai'
import { sql } from '../../db/drizzle-orm.ts'
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
 * left. No transaction is held across the gateway call (on the embedded database that would hold
 * its one session for the call's whole duration); two hosts embedding the same batch at once
 * only waste work, since the insert skips what is already there.
 */
export async function embedPending(db: Db, embed: Embed, model: string): Promise<number> {
  let done = 0
  for (;;) {
    const pending = rowsOf<{ id: string; content: string }>(
      await db.execute(sql`
        select i.id, i.content from popagent_recall_items i
        where not exists (
          select 1 from popagent_recall_vectors v where v.item_id = i.id and v.model = ${model})
        order by i.id limit ${BATCH}`),
    )
    if (pending.length === 0) return done
    const vectors = await embed(pending.map((p) => p.content))
    await ensureVectorIndex(db, model, vectors[0]!.length)
    const rows = pending.map((item, at) => [item.id, `[${vectors[at]!.join(',')}]`])
    // An item deleted meanwhile is skipped by the join rather than failing the batch.
    await db.execute(sql`
      insert into popagent_recall_vectors (item_id, model, embedding)
      select x->>0, ${model}, (x->>1)::vector
      from jsonb_array_elements(${JSON.stringify(rows)}::jsonb) x
      join popagent_recall_items i on i.id = x->>0
      on conflict do nothing`)
    done += pending.length
    if (pending.length < BATCH) return done
  }
}
