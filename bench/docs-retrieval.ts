/**
 * Documentation retrieval (W7): how often the section that answers a generated, paraphrased
 * question is among the first five results (hit@5, and hit@1), and how long one search takes with
 * 10,000 chunks in the workspace, on real PostgreSQL. The corpus and questions come from
 * bench/docs-corpus.ts (seeded); filler documents of the same shape bring the chunk count up, so
 * the measured questions compete with thousands of near-identical sections.
 */
import { sql } from '../db/drizzle-orm.ts'
import { openNodePostgres } from '../compute-host/database/postgres.ts'
import { indexPendingDocs } from '../compute-host/docs/indexer.ts'
import { createLogger } from '../compute-host/log.ts'
import { DEFAULT_WORKSPACE_ID } from '../db/data-migrations/0002-register-default-workspace.ts'
import type { Db } from '../db/index.ts'
import { rowsOf } from '../db/rows.ts'
import * as Docs from '../runtime/docs/index.ts'
import { searchDocText, toHit } from '../runtime/docs/search.ts'
import * as Settings from '../runtime/settings/index.ts'
import { createAdmissionQueue } from '../compute-host/models/admission-queue.ts'
import { createGatewayModels } from '../compute-host/models/gateway-models.ts'
import { gatewayEmbedder } from '../compute-host/recall/embeddings.ts'
import { embedPendingChunks } from '../compute-host/docs/embed-chunks.ts'
import { searchDocs, type DocSearchDeps } from '../compute-host/docs/hybrid-search.ts'
import type { DocSearchHit } from '../runtime/contracts/docs.ts'
import { benchDatabase } from './database.ts'
import { startEmbeddingsServer } from './recall-embeddings-server.ts'
import { generateDocsCorpus, type CorpusQuestion } from './docs-corpus.ts'
import type { BenchMode, BenchResult } from './result.ts'
import { percentile } from './stats.ts'

const quiet = createLogger({ secrets: [], write: () => {} })

async function load(db: Db, documents: number, seed: number) {
  const corpus = generateDocsCorpus(documents, seed)
  for (const doc of corpus.docs) {
    await Docs.create(db, DEFAULT_WORKSPACE_ID, { ...doc, slug: `${seed}/${doc.slug}` })
  }
  while ((await indexPendingDocs(db, quiet)) > 0) {}
  return corpus.questions.map((q) => ({ ...q, slug: `${seed}/${q.slug}` }))
}

type Search = (query: string) => Promise<DocSearchHit[]>

async function measure(questions: CorpusQuestion[], search: Search) {
  let hit5 = 0
  let hit1 = 0
  const latencies: number[] = []
  for (const q of questions) {
    const began = performance.now()
    const results = await search(q.text)
    latencies.push(performance.now() - began)
    const at = results.findIndex((r) => r.slug === q.slug && r.headingPath.endsWith(q.heading))
    if (at >= 0) hit5++
    if (at === 0) hit1++
  }
  return { hit5: hit5 / questions.length, hit1: hit1 / questions.length, latencies }
}

export async function benchDocsRetrieval(mode: BenchMode): Promise<BenchResult[]> {
  const database = await benchDatabase({ needs: 'pgvector' })
  const handle = openNodePostgres(database.url, { max: 2 })
  // The test embeddings the recall bench uses (hashed character trigrams of each word: no
  // synonyms), served over the gateway's protocol and read through the real embeddings client.
  const gateway = await startEmbeddingsServer()
  try {
    const db = handle.db
    const questions = await load(db, mode.quick ? 30 : 120, 7)
    // Filler of the same shape up to about 10,000 chunks (5 per document: title and 4 sections).
    await load(db, mode.quick ? 200 : 1_980, 99)
    const [{ chunks } = { chunks: 0 }] = rowsOf<{ chunks: number }>(
      await db.execute(sql`select count(*)::int as chunks from popagent_doc_chunks`),
    )
    const models = createGatewayModels({
      url: gateway.url,
      localModels: { queue: createAdmissionQueue(1), isLocal: () => false },
    })
    const embedderOf = (model: string) => gatewayEmbedder(models, model)
    await Settings.memory.patch(db, { embeddingModel: 'embed/test' })
    await embedPendingChunks(db, embedderOf('embed/test'), 'embed/test')
    const deps: DocSearchDeps = { db, log: quiet, embedderOf }
    const fullText: Search = async (query) =>
      (await searchDocText(db, DEFAULT_WORKSPACE_ID, query, 5)).map((r) => toHit(r))
    const hybrid: Search = async (query) =>
      (await searchDocs(deps, DEFAULT_WORKSPACE_ID, { query, limit: 5 })).results
    await measure(questions.slice(0, 10), fullText) // warm the plans and the cache
    await measure(questions.slice(0, 10), hybrid)
    const fts = await measure(questions, fullText)
    const both = await measure(questions, hybrid)
    const detail = `${questions.length} paraphrased questions over ${chunks} chunks`
    const latency = (name: string, m: typeof fts): BenchResult => {
      const p50 = percentile(m.latencies, 50)
      return {
        name,
        goal: '≤ 20 ms at 10,000 chunks',
        ratio: p50,
        unit: 'ms',
        met: p50 <= 20 && (mode.quick || chunks >= 10_000),
        detail: `${detail}; p90 ${percentile(m.latencies, 90).toFixed(1)} ms`,
      }
    }
    return [
      {
        name: 'docs retrieval hit@5, full text',
        goal: 'reported (the hybrid figure carries the goal)',
        ratio: fts.hit5,
        met: true,
        detail: `${detail}; hit@1 ${fts.hit1.toFixed(2)}`,
      },
      {
        name: 'docs retrieval hit@5, hybrid (no reranking)',
        goal: '≥ 0.9 with the test embeddings',
        ratio: both.hit5,
        met: both.hit5 >= 0.9,
        detail: `${detail}; hit@1 ${both.hit1.toFixed(2)}; reranking is not benched (no scripted model judges relevance)`,
      },
      latency('docs search p50, full text', fts),
      latency('docs search p50, hybrid (embedding call included)', both),
    ]
  } finally {
    await gateway.close()
    await handle.close()
    await database.drop()
  }
}
