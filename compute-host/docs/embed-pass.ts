import { sql } from '../../db/drizzle-orm.ts'
import { errorMessage } from '../../runtime/error-message.ts'
import * as Settings from '../../runtime/settings/index.ts'
import { embedPendingChunks, hasDocVectors } from './embed-chunks.ts'
import type { DocSearchDeps } from './hybrid-search.ts'

const ATTEMPTS = 3
// After a pass whose batches kept failing, the gateway is left alone this long.
const PAUSE_AFTER_FAILURE_MS = 60_000
// What marks a document whose chunks are missing vectors; cleared once they all have one.
const VECTOR_NOTE = 'vectors missing'

/**
 * One embedding pass of the documentation indexer. A failing batch is tried three times; when it
 * still fails, every document with chunks lacking a vector for the model says so in its index
 * error (full text still finds it), never silently, and the next try waits a minute so a gateway
 * that is down is not called every tick. Once every chunk has its vector the note is cleared.
 */
export function createEmbedPass(deps: DocSearchDeps, pauseAfterFailureMs = PAUSE_AFTER_FAILURE_MS) {
  const { db, log } = deps
  let vectors: Promise<boolean> | undefined
  let pausedUntil = 0
  return async function embedPass(): Promise<void> {
    if (Date.now() < pausedUntil) return
    const { embeddingModel: model } = await Settings.memory.get(db)
    if (!model || !(await (vectors ??= hasDocVectors(db)))) return
    let failure: unknown
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        await embedPendingChunks(db, deps.embedderOf(model), model)
        failure = undefined
        break
      } catch (error) {
        failure = error
      }
    }
    if (failure !== undefined) {
      pausedUntil = Date.now() + pauseAfterFailureMs
      const reason = errorMessage(failure).slice(0, 300)
      log.warn('document chunks could not be embedded', { model, error: reason })
      await db.execute(sql`
        update popagent_docs d set index_error = ${`${VECTOR_NOTE} for ${model}: ${reason}; full-text search still finds this document, and the embedding is retried`}
        where exists (
          select 1 from popagent_doc_chunks c where c.doc_id = d.id and not exists (
            select 1 from popagent_doc_vectors v where v.chunk_id = c.id and v.model = ${model}))`)
      return
    }
    await db.execute(sql`
      update popagent_docs d set index_error = null
      where d.index_error like ${`${VECTOR_NOTE}%`}`)
  }
}
