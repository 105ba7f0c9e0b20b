import { desc, eq, sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { retentionRuns, retentionSettings } from '../../db/observability/schema/index.ts'
import type { RetentionTrigger } from '../../db/observability/schema/index.ts'
import { rowsOf } from '../../db/rows.ts'
import type { RetentionSettings } from '../../runtime/contracts/observability.ts'
import type { SpanStorage } from './span-store.ts'

// Scores are not written by popagent yet; Mastra's table is kept bounded all the same.
const SCORE_DAYS = 180
const MAX_BATCHES = 50

export async function readRetention(db: Db): Promise<RetentionSettings> {
  const [row] = await db.select().from(retentionSettings).limit(1)
  const { spanDays, logDays, metricDays, feedbackDays } = row ?? defaults()
  return { spanDays, logDays, metricDays, feedbackDays }
}

export async function updateRetention(
  db: Db,
  patch: Partial<RetentionSettings>,
): Promise<RetentionSettings> {
  const next = { ...(await readRetention(db)), ...patch }
  await db
    .insert(retentionSettings)
    .values({ id: true, ...next })
    .onConflictDoUpdate({ target: retentionSettings.id, set: { ...next, updatedAt: new Date() } })
  return next
}

function defaults() {
  return { spanDays: 30, logDays: 14, metricDays: 90, feedbackDays: 365 }
}

/**
 * One run of the retention job: `init()` first, which also creates the day partitions ahead
 * (without it, inserts fail once the window runs out), then whole day partitions older than the
 * owner's retention are dropped, never row by row and never with a VACUUM. Each run is recorded
 * in popagent_obs_retention_runs, a failed one with its (redacted) error.
 */
export async function runRetention(options: {
  storage: SpanStorage
  db: Db
  trigger: RetentionTrigger
  redact: (text: string) => string
  signal?: AbortSignal
}): Promise<{ partitionsDropped: number }> {
  const { db } = options
  const [run] = await db
    .insert(retentionRuns)
    .values({ trigger: options.trigger })
    .returning({ id: retentionRuns.id })
  try {
    await options.storage.init()
    const before = await partitionCount(db)
    const days = await readRetention(db)
    const age = (n: number) => ({ maxAge: `${n}d` as const })
    await options.storage.prune(
      {
        spans: age(days.spanDays),
        logs: age(days.logDays),
        metrics: age(days.metricDays),
        feedback: age(days.feedbackDays),
        scores: age(SCORE_DAYS),
      },
      { maxBatches: MAX_BATCHES, ...(options.signal && { signal: options.signal }) },
    )
    const partitionsDropped = before - (await partitionCount(db))
    await db
      .update(retentionRuns)
      .set({ outcome: 'succeeded', finishedAt: new Date(), partitionsDropped })
      .where(eq(retentionRuns.id, run!.id))
    return { partitionsDropped }
  } catch (error) {
    const message = options.redact(error instanceof Error ? error.message : String(error))
    await db
      .update(retentionRuns)
      .set({ outcome: 'failed', finishedAt: new Date(), error: message.slice(0, 2_000) })
      .where(eq(retentionRuns.id, run!.id))
      .catch(() => {})
    throw error
  }
}

export async function lastRetentionRun(db: Db) {
  const [row] = await db
    .select()
    .from(retentionRuns)
    .orderBy(desc(retentionRuns.startedAt))
    .limit(1)
  return row
}

// The day partitions of Mastra's event tables in this database's schema (the handle's search
// path names it: `observability` inside the embedded instance).
async function partitionCount(db: Db): Promise<number> {
  const rows = rowsOf<{ n: number }>(
    await db.execute(sql`
      select count(*)::int as n from pg_inherits i
      join pg_class parent on parent.oid = i.inhparent
      join pg_namespace ns on ns.oid = parent.relnamespace
      where parent.relname like 'mastra\\_%\\_events' and ns.nspname = current_schema()`),
  )
  return rows[0]?.n ?? 0
}
