/**
 * Documentation retrieval (W7): how often the section that answers a generated, paraphrased
 * question is among the first five results (hit@5, and hit@1), and how long one search takes with
 * 10,000 chunks in the workspace, on real PostgreSQL. The corpus and questions come from
 * bench/docs-corpus.ts (seeded); filler documents of the same shape bring the chunk count up, so
 * the measured questions compete with thousands of near-identical sections.
 */
import { sql } from 'drizzle-orm'
import { openNodePostgres } from '../compute-host/database/postgres.ts'
import { indexPendingDocs } from '../compute-host/docs/indexer.ts'
import { createLogger } from '../compute-host/log.ts'
import { DEFAULT_WORKSPACE_ID } from '../db/data-migrations/0002-register-default-workspace.ts'
import type { Db } from '../db/index.ts'
import { rowsOf } from '../db/rows.ts'
import * as Docs from '../runtime/docs/index.ts'
import { search } from '../runtime/docs/search.ts'
import { benchDatabase } from './database.ts'
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

async function measure(db: Db, questions: CorpusQuestion[]) {
  let hit5 = 0
  let hit1 = 0
  const latencies: number[] = []
  for (const q of questions) {
    const began = performance.now()
    const { results } = await search(db, DEFAULT_WORKSPACE_ID, { query: q.text, limit: 5 })
    latencies.push(performance.now() - began)
    const at = results.findIndex((r) => r.slug === q.slug && r.headingPath.endsWith(q.heading))
    if (at >= 0) hit5++
    if (at === 0) hit1++
  }
  return { hit5: hit5 / questions.length, hit1: hit1 / questions.length, latencies }
}

export async function benchDocsRetrieval(mode: BenchMode): Promise<BenchResult[]> {
  const database = await benchDatabase()
  const handle = openNodePostgres(database.url, { max: 2 })
  try {
    const db = handle.db
    const questions = await load(db, mode.quick ? 30 : 120, 7)
    // Filler of the same shape up to about 10,000 chunks (5 per document: title and 4 sections).
    await load(db, mode.quick ? 200 : 1_980, 99)
    const [{ chunks } = { chunks: 0 }] = rowsOf<{ chunks: number }>(
      await db.execute(sql`select count(*)::int as chunks from popagent_doc_chunks`),
    )
    await measure(db, questions.slice(0, 10)) // warm the plan and the cache
    const fts = await measure(db, questions)
    const p50 = percentile(fts.latencies, 50)
    const detail = `${questions.length} paraphrased questions over ${chunks} chunks`
    return [
      {
        name: 'docs retrieval hit@5, full text',
        goal: '≥ 0.9 (reported; vectors arrive with the embeddings)',
        ratio: fts.hit5,
        met: fts.hit5 >= 0.9,
        detail: `${detail}; hit@1 ${fts.hit1.toFixed(2)}`,
      },
      {
        name: 'docs search p50, full text',
        goal: '≤ 20 ms at 10,000 chunks',
        ratio: p50,
        unit: 'ms',
        met: p50 <= 20 && (mode.quick || chunks >= 10_000),
        detail: `${detail}; p90 ${percentile(fts.latencies, 90).toFixed(1)} ms`,
      },
    ]
  } finally {
    await handle.close()
    await database.drop()
  }
}
