import { sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { rowsOf } from '../../db/rows.ts'
import type { DocSearchInput, DocSearchResult } from '../../runtime/contracts/docs.ts'
import { searchDocText, toHit, type DocChunkRow } from '../../runtime/docs/search.ts'
import { errorMessage } from '../../runtime/error-message.ts'
import * as Settings from '../../runtime/settings/index.ts'
import type { Logger } from '../log.ts'
import type { Embed } from '../recall/embeddings.ts'
import { hasDocVectors } from './embed-chunks.ts'
import { RERANK_CANDIDATES, rerankFailure, type Reranker } from './rerank.ts'

// Candidates per leg before fusion, and reciprocal rank fusion's usual constant.
const LEG_LIMIT = 50
const RRF_K = 60
// The vector leg always returns neighbours; one that full text did not find must be at least this
// similar to count (the same floor as recall's, compute-host/recall/fuse.ts).
const MIN_COSINE = 0.55
// A question's embedding that takes longer than this is given up: full text answers alone.
const EMBED_TIMEOUT_MS = 2_000

export type DocSearchDeps = {
  db: Db
  log: Logger
  /** The embedder of a model (the gateway's `/v1/embeddings`). */
  embedderOf: (model: string) => Embed
  /**
   * The local reranker and which model ids are local routes; without them (or when the settings'
   * local model is not a local route) the fusion order is the answer.
   */
  rerank?: { with: Reranker; isLocal: (modelId: string) => boolean }
}

/**
 * Documentation search for the API and the agents: full text and, when the memory settings name
 * an embedding model and the database has pgvector, the nearest chunks by cosine distance among
 * those embedded with that model, merged by reciprocal rank fusion. Both legs are filtered to the
 * workspace. When the agent-runtime settings' local model is a local route, the first twenty are
 * then ordered by it (rerank.ts). A failing or slow embedding or rerank never fails the search: it
 * answers from what it has, and `method` says why.
 */
export async function searchDocs(
  deps: DocSearchDeps,
  workspaceId: string,
  input: DocSearchInput,
  signal?: AbortSignal,
): Promise<DocSearchResult> {
  const { embeddingModel: model } = await Settings.memory.get(deps.db)
  const vectorLeg = async (): Promise<{ rows: DocChunkRow[]; note?: string }> => {
    if (!model)
      return { rows: [], note: 'no embedding model is set (Settings → Memory → Embedding model)' }
    if (!(await hasDocVectors(deps.db))) return { rows: [], note: 'pgvector is not available' }
    try {
      const timeout = AbortSignal.timeout(EMBED_TIMEOUT_MS)
      const [vector] = await deps.embedderOf(model)(
        [input.query],
        signal ? AbortSignal.any([timeout, signal]) : timeout,
      )
      return { rows: await nearestChunks(deps.db, workspaceId, vector!, model) }
    } catch (error) {
      deps.log.warn('docs search fell back to full text', { model, error: errorMessage(error) })
      return { rows: [], note: `the embedding failed (${errorMessage(error).slice(0, 160)})` }
    }
  }
  const [text, vector] = await Promise.all([
    searchDocText(deps.db, workspaceId, input.query, LEG_LIMIT),
    vectorLeg(),
  ])
  const fused = new Map<string, { row: DocChunkRow; score: number }>()
  text.forEach((row, at) => fused.set(row.chunk_id, { row, score: 1 / (RRF_K + at + 1) }))
  vector.rows.forEach((row, at) => {
    const found = fused.get(row.chunk_id)
    if (found) found.score += 1 / (RRF_K + at + 1)
    else if (Number(row.score) >= MIN_COSINE) {
      fused.set(row.chunk_id, { row, score: 1 / (RRF_K + at + 1) })
    }
  })
  const ranked = [...fused.values()].sort(
    (a, b) => b.score - a.score || (a.row.chunk_id < b.row.chunk_id ? -1 : 1),
  )
  const scores = new Map(ranked.map((e) => [e.row.chunk_id, e.score]))
  let rows = ranked.map((e) => e.row)
  let method = vector.note
    ? `full text only: ${vector.note}`
    : `full text and vectors (${model}), merged by rank fusion`
  const { localModel } = await Settings.agentRuntime.get(deps.db)
  if (deps.rerank?.isLocal(localModel) && rows.length > 1) {
    const top = rows.slice(0, RERANK_CANDIDATES)
    try {
      rows = [
        ...(await deps.rerank.with(localModel, input.query, top, signal)),
        ...rows.slice(top.length),
      ]
      method += `; reranked by ${localModel}`
    } catch (error) {
      deps.log.warn('docs rerank failed', { model: localModel, error: errorMessage(error) })
      method += rerankFailure(localModel, error)
    }
  }
  return {
    method,
    results: rows.slice(0, input.limit).map((r) => toHit(r, scores.get(r.chunk_id) ?? 0)),
  }
}

async function nearestChunks(
  db: Db,
  workspaceId: string,
  vector: readonly number[],
  model: string,
): Promise<DocChunkRow[]> {
  const literal = `[${vector.join(',')}]`
  // The nearest of the workspace's vectors first, from the vectors alone (each carries its
  // chunk's workspace, migration 0016), and only those joined to their text.
  const result = await db.execute(sql`
    with nearest as materialized (
      select v.chunk_id, v.embedding <=> ${literal}::vector as distance
      from popagent_doc_vectors v
      where v.workspace_id = ${workspaceId} and v.model = ${model}
      order by distance, v.chunk_id
      limit ${LEG_LIMIT}
    )
    select c.id as chunk_id, c.doc_id, d.slug, d.title, c.heading_path, c.content,
           1 - n.distance as score
    from nearest n
    join popagent_doc_chunks c on c.id = n.chunk_id
    join popagent_docs d on d.id = c.doc_id
    where c.workspace_id = ${workspaceId}
    order by n.distance, c.id`)
  return rowsOf<DocChunkRow>(result)
}
