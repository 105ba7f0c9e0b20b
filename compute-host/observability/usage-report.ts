import type { Db } from '../../db/index.ts'
import type { UsageQuery, UsageReport, UsageRow } from '../../runtime/contracts/observability.ts'
import { costUsd } from './cost.ts'
import { priceBook } from './model-prices.ts'
import type { SpanStorage } from './span-store.ts'
import {
  CACHED_INPUT_TOKENS_METRIC,
  INPUT_TOKENS_METRIC,
  OUTPUT_TOKENS_METRIC,
  USAGE_PROVIDER,
} from './store-tracer.ts'

const DAY_MS = 86_400_000

// The metric columns (or label) each grouping reads; `taskId` is a label of the usage metrics.
const DIMENSION = { model: 'model', agent: 'entityId', session: 'sessionId', task: 'taskId' }

const FIELDS = [
  ['inputTokens', INPUT_TOKENS_METRIC],
  ['outputTokens', OUTPUT_TOKENS_METRIC],
  ['cachedInputTokens', CACHED_INPUT_TOKENS_METRIC],
] as const

/**
 * Token usage from the usage metrics the tracer records per model call and delegation, grouped
 * by model, agent, session, task or day, each group split by model so it can be priced. Cost is
 * computed here from the owner's price table (Mastra's own pricing does not know gateway routes),
 * at the price in effect at the end of the period (of each day, grouped by day); a model with no
 * price has tokens and a null cost.
 */
export async function usageReport(
  storage: SpanStorage,
  db: Db,
  query: UsageQuery,
  now = new Date(),
): Promise<UsageReport> {
  const filters = {
    timestamp: { start: new Date(now.getTime() - query.days * DAY_MS), end: now },
    provider: USAGE_PROVIDER,
    ...(query.sessionId && { sessionId: query.sessionId }),
    ...(query.traceId && { traceId: query.traceId }),
    ...(query.taskId && { labels: { taskId: query.taskId } }),
  }
  const rows = new Map<string, UsageRow & { at: Date }>()
  const add = (
    key: string,
    model: string,
    at: Date,
    field: (typeof FIELDS)[number][0],
    n: number,
  ) => {
    const id = `${key}\u0000${model}`
    const row = rows.get(id) ?? {
      key,
      model,
      at,
      inputTokens: 0,
      outputTokens: 0,
      cachedInputTokens: 0,
      costUsd: null,
    }
    row[field] += Math.round(n)
    rows.set(id, row)
  }
  await Promise.all(
    FIELDS.map(async ([field, name]) => {
      if (query.groupBy === 'day') {
        const { series } = await storage.getMetricTimeSeries({
          name: [name],
          interval: '1d',
          aggregation: 'sum',
          groupBy: ['model'],
          filters,
        })
        for (const s of series) {
          for (const p of s.points) {
            const end = new Date(Math.min(now.getTime(), p.timestamp.getTime() + DAY_MS - 1))
            add(p.timestamp.toISOString().slice(0, 10), s.name, end, field, p.value)
          }
        }
        return
      }
      const dimension = DIMENSION[query.groupBy]
      const { groups } = await storage.getMetricBreakdown({
        name: [name],
        groupBy: dimension === 'model' ? ['model'] : [dimension, 'model'],
        aggregation: 'sum',
        filters,
      })
      for (const g of groups) {
        const model = g.dimensions.model ?? 'unknown'
        add(g.dimensions[dimension] ?? 'unknown', model, now, field, g.value)
      }
    }),
  )
  const price = await priceBook(db)
  const priced = [...rows.values()].map(({ at, ...row }) => {
    const p = price(row.model, at)
    return { ...row, costUsd: p ? costUsd(row, p) : null }
  })
  priced.sort((a, b) => a.key.localeCompare(b.key) || a.model.localeCompare(b.model))
  const sum = (f: (r: UsageRow) => number) => priced.reduce((t, r) => t + f(r), 0)
  return {
    groupBy: query.groupBy,
    rows: priced,
    totals: {
      inputTokens: sum((r) => r.inputTokens),
      outputTokens: sum((r) => r.outputTokens),
      cachedInputTokens: sum((r) => r.cachedInputTokens),
      costUsd: Math.round(sum((r) => r.costUsd ?? 0) * 1e8) / 1e8,
      unpricedModels: [...new Set(priced.filter((r) => r.costUsd === null).map((r) => r.model))],
    },
  }
}
