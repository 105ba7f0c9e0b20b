import { and, eq, inArray } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { docChunks, docs } from '../../db/schema/index.ts'
import { chunkMarkdown } from '../../runtime/docs/chunk.ts'
import { sha256Hex } from '../../runtime/docs/sha256.ts'
import { errorMessage } from '../../runtime/error-message.ts'
import type { Logger } from '../log.ts'
import { createEmbedPass } from './embed-pass.ts'
import type { DocSearchDeps } from './hybrid-search.ts'

const BATCH = 8

/**
 * Background indexing of documentation (W7): documents whose text changed (`pending`) are cut into
 * chunks and their chunks replaced in one transaction, never blocking the API that saved them.
 * A document is claimed with SKIP LOCKED, so several hosts share the work; its chunks are written
 * only if its text is still the one that was chunked (a save in between leaves it pending for
 * the next pass). Unchanged documents are never re-chunked.
 */
export async function indexPendingDocs(db: Db, log: Logger): Promise<number> {
  const claimed = await db.transaction(async (tx) => {
    const rows = await tx
      .select({ id: docs.id })
      .from(docs)
      .where(eq(docs.indexState, 'pending'))
      .limit(BATCH)
      .for('update', { skipLocked: true })
    if (rows.length === 0) return []
    const ids = rows.map((r) => r.id)
    await tx.update(docs).set({ indexState: 'indexing' }).where(inArray(docs.id, ids))
    return ids
  })
  for (const id of claimed) {
    try {
      await indexOne(db, id)
    } catch (error) {
      log.warn('document indexing failed', { docId: id, error: errorMessage(error) })
      await db
        .update(docs)
        .set({ indexState: 'failed', indexError: errorMessage(error).slice(0, 1_000) })
        .where(eq(docs.id, id))
    }
  }
  return claimed.length
}

async function indexOne(db: Db, id: string): Promise<void> {
  const [doc] = await db.select().from(docs).where(eq(docs.id, id))
  if (!doc) return
  const chunks = chunkMarkdown(doc.body)
  const rows = await Promise.all(
    chunks.map(async (c) => ({
      id: `chk_${(await sha256Hex(`${doc.id}\n${c.ordinal}\n${c.headingPath}\n${c.content}`)).slice(0, 32)}`,
      docId: doc.id,
      workspaceId: doc.workspaceId,
      ...c,
    })),
  )
  await db.transaction(async (tx) => {
    // Still the text that was chunked? A save since then leaves the document for the next pass.
    const [current] = await tx
      .select({ sha: docs.contentSha256 })
      .from(docs)
      .where(eq(docs.id, id))
      .for('update')
    if (!current) return
    if (current.sha !== doc.contentSha256) {
      await tx.update(docs).set({ indexState: 'pending' }).where(eq(docs.id, id))
      return
    }
    await tx.delete(docChunks).where(eq(docChunks.docId, id))
    if (rows.length) await tx.insert(docChunks).values(rows)
    await tx
      .update(docs)
      .set({
        indexState: 'indexed',
        indexError: null,
        indexedSha256: doc.contentSha256,
        chunkCount: rows.length,
      })
      .where(and(eq(docs.id, id), eq(docs.contentSha256, doc.contentSha256)))
  })
}

/**
 * Runs `indexPendingDocs` every `intervalMs` until stopped, then embeds the chunks that have no
 * vector for the memory settings' embedding model (when one is set and pgvector is there). Errors are logged and the loop goes on: an unreachable database
 * is retried on the next tick, a failing embedding batch after a pause (embed-pass.ts).
 */
export function startDocIndexer(deps: DocSearchDeps, intervalMs = 2_000) {
  const { db, log } = deps
  const embedPass = createEmbedPass(deps)
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  let stopped = false
  const pass = async () => {
    try {
      while (!stopped && (await indexPendingDocs(db, log)) > 0) {}
      if (!stopped) await embedPass()
    } catch (error) {
      log.warn('document indexer pass failed', { error: errorMessage(error) })
    }
  }
  const tick = () => {
    if (stopped || running) return
    running = pass().finally(() => {
      running = undefined
      if (!stopped) timer = setTimeout(tick, intervalMs)
    })
  }
  // Documents a stopped host left half-indexed are taken again (indexing is idempotent).
  timer = setTimeout(
    () =>
      void db
        .update(docs)
        .set({ indexState: 'pending' })
        .where(eq(docs.indexState, 'indexing'))
        .catch((error) => log.warn('document indexer reset failed', { error: errorMessage(error) }))
        .finally(tick),
    0,
  )
  return {
    async stop() {
      stopped = true
      clearTimeout(timer)
      await running
    },
  }
}
export type DocIndexer = ReturnType<typeof startDocIndexer>
