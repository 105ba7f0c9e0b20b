/**
 * Cross-session recall quality and latency (X2), on real PostgreSQL with pgvector.
 *
 * Quality: a generated probe set (bench/recall-probes.ts: 240 facts over 50 sessions among
 * distractor turns, one paraphrased question per fact) indexed as recall does it, embedded
 * through the gateway protocol by a loopback server (bench/recall-embeddings-server.ts). Each
 * question is asked from a new session, full-text only and hybrid: recall@5 is the share of
 * questions whose fact is among the first five injected items; precision is injected facts that
 * were the asked one over everything injected.
 *
 * Latency: the same search at 10,000 items over 1,000 sessions (quick: 2,000 over 200), the
 * query's embedding round trip included, p50 and p95 over the questions.
 */
import { sql } from '../db/drizzle-orm.ts'
import { openNodePostgres } from '../compute-host/database/postgres.ts'
import { createLogger } from '../compute-host/log.ts'
import { createAdmissionQueue } from '../compute-host/models/admission-queue.ts'
import { createGatewayModels } from '../compute-host/models/gateway-models.ts'
import { createRecall, type Recall } from '../compute-host/recall/recall.ts'
import type { Db } from '../db/index.ts'
import { rowsOf } from '../db/rows.ts'
import type { MemorySettings } from '../runtime/contracts/settings.ts'
import { createId } from '../runtime/ids.ts'
import * as Settings from '../runtime/settings/index.ts'
import { benchDatabase } from './database.ts'
import { startEmbeddingsServer, trigramVector } from './recall-embeddings-server.ts'
import { searchText, searchVector } from '../compute-host/recall/search.ts'
import { generateProbes, type Probe, type Turn } from './recall-probes.ts'
import type { BenchMode, BenchResult } from './result.ts'
import { percentile } from './stats.ts'

const SEED = 20_261_203
const RECALL_AT = 5
const MODEL = 'bench/trigram'

async function insertSessions(db: Db, ids: string[]) {
  for (let at = 0; at < ids.length; at += 1_000) {
    const batch = JSON.stringify(ids.slice(at, at + 1_000))
    await db.execute(sql`
      insert into popagent_sessions (id, workspace_id, title)
      select x, 'wsp_default', 'bench ' || x from jsonb_array_elements_text(${batch}::jsonb) x`)
  }
}

async function insertTurns(db: Db, sessions: string[], turns: Turn[]) {
  for (let at = 0; at < turns.length; at += 1_000) {
    const rows = turns
      .slice(at, at + 1_000)
      .map((t) => [createId('recall'), sessions[t.sessionIndex], t.turnId, t.content])
    await db.execute(sql`
      insert into popagent_recall_items (id, kind, session_id, turn_id, content)
      select x->>0, 'message_span', x->>1, x->>2, x->>3
      from jsonb_array_elements(${JSON.stringify(rows)}::jsonb) x`)
  }
}

async function quality(recall: Recall, probes: Probe[], settings: MemorySettings) {
  let hits = 0
  let injected = 0
  let relevant = 0
  for (const probe of probes) {
    const { items } = await recall.search(probe.question, { settings })
    if (items.slice(0, RECALL_AT).some((i) => i.turnId === probe.factTurn)) hits++
    injected += items.length
    relevant += items.filter((i) => i.turnId === probe.factTurn).length
  }
  return { recallAt5: hits / probes.length, precision: injected ? relevant / injected : 0 }
}

/** The database's part of one recall: both legs side by side, the query vector already made. */
async function databaseLatency(db: Db, probes: Probe[]) {
  const times: number[] = []
  for (const probe of probes) {
    const vector = trigramVector(probe.question)
    const started = performance.now()
    await Promise.all([searchText(db, probe.question), searchVector(db, vector, MODEL)])
    times.push(performance.now() - started)
  }
  return { p50: percentile(times, 50), p95: percentile(times, 95) }
}

async function latency(recall: Recall, probes: Probe[], settings: MemorySettings) {
  const times: number[] = []
  for (const probe of probes) {
    const started = performance.now()
    await recall.search(probe.question, { settings })
    times.push(performance.now() - started)
  }
  return { p50: percentile(times, 50), p95: percentile(times, 95) }
}

export async function benchRecall({ quick }: BenchMode): Promise<BenchResult[]> {
  const database = await benchDatabase({ needs: 'pgvector' })
  const handle = openNodePostgres(database.url, { max: 4 })
  const embeddings = await startEmbeddingsServer()
  try {
    const db = handle.db
    const models = createGatewayModels({
      url: embeddings.url,
      localModels: { queue: createAdmissionQueue(1), isLocal: () => false },
    })
    const log = createLogger({ secrets: [], write: () => {} })
    const recall = createRecall({ db, models, log, redact: (t) => t })
    const base = await Settings.memory.get(db)
    const hybrid: MemorySettings = { ...base, embeddingModel: MODEL }
    const fullText: MemorySettings = { ...base, embeddingModel: null }

    const set = generateProbes({ seed: SEED, facts: 240, sessions: 50, distractors: 4 })
    const sessions = Array.from({ length: 50 }, () => createId('session'))
    await insertSessions(db, sessions)
    await insertTurns(db, sessions, set.turns)
    await recall.catchUp(hybrid)
    const fts = await quality(recall, set.probes, fullText)
    const hyb = await quality(recall, set.probes, hybrid)

    // Grow to the latency scale with more sessions of the same kind of turns.
    const scaleSessions = quick ? 200 : 1_000
    const scaleItems = quick ? 2_000 : 10_000
    const more = Array.from({ length: scaleSessions - 50 }, () => createId('session'))
    await insertSessions(db, more)
    const filler = generateProbes({
      seed: SEED + 1,
      facts: 250,
      sessions: more.length,
      distractors: Math.ceil((scaleItems - set.turns.length - 250) / more.length),
    })
    await insertTurns(db, more, filler.turns.slice(0, scaleItems - set.turns.length))
    await recall.catchUp(hybrid)
    const count = rowsOf<{ count: number }>(
      await db.execute(sql`select count(*)::int as count from popagent_recall_items`),
    )[0]?.count
    const asked = set.probes.slice(0, quick ? 30 : 240)
    // One warm-up pass so the first plans and connections are not measured.
    await latency(recall, asked.slice(0, 10), hybrid)
    const hybridTime = await latency(recall, asked, hybrid)
    const ftsTime = await latency(recall, asked, fullText)
    const dbTime = await databaseLatency(db, asked)

    const pct = (x: number) => Math.round(x * 10_000) / 100
    const detail = `${set.probes.length} paraphrased questions, 240 facts in 50 sessions; full-text recall@5 ${pct(fts.recallAt5)} %, precision ${pct(fts.precision)} %; hybrid precision ${pct(hyb.precision)} %`
    return [
      {
        name: 'recall: recall@5, hybrid',
        goal: '≥ 90 % and ≥ full-text',
        ratio: pct(hyb.recallAt5),
        unit: '%',
        met: hyb.recallAt5 >= 0.9 && hyb.recallAt5 >= fts.recallAt5,
        detail,
      },
      {
        name: 'recall: precision of the injected block, hybrid',
        goal: '≥ full-text',
        ratio: pct(hyb.precision),
        unit: '%',
        met: hyb.precision >= fts.precision,
        detail: `full-text ${pct(fts.precision)} %`,
      },
      {
        name: `recall: database p50 at ${count} items / ${scaleSessions} sessions`,
        goal: '≤ 15 ms',
        ratio: Math.round(dbTime.p50 * 100) / 100,
        unit: 'ms',
        met: dbTime.p50 <= 15,
        detail: `both legs side by side, query vector given; p95 ${dbTime.p95.toFixed(2)} ms`,
      },
      {
        name: `recall: per turn p50 at ${count} items / ${scaleSessions} sessions`,
        goal: '≤ 15 ms',
        ratio: Math.round(hybridTime.p50 * 100) / 100,
        unit: 'ms',
        met: hybridTime.p50 <= 15,
        detail: `hybrid, the query's embedding round trip to a loopback server included; p95 ${hybridTime.p95.toFixed(2)} ms; full-text only p50 ${ftsTime.p50.toFixed(2)} ms`,
      },
    ]
  } finally {
    await embeddings.close()
    await handle.close()
    await database.drop()
  }
}
