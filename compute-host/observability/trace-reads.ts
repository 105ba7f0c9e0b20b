import type {
  LogQuery,
  TraceDetail,
  TraceListQuery,
  TraceSpan,
  TraceSummary,
} from '../../runtime/contracts/observability.ts'
import type { SpanStorage } from './span-store.ts'
import { INPUT_TOKENS_METRIC } from './store-tracer.ts'

type StoredSpan = NonNullable<Awaited<ReturnType<SpanStorage['getTrace']>>>['spans'][number]

// How far back the agent filter looks (the usage metrics are kept 90 days).
const AGENT_LOOKBACK_MS = 30 * 86_400_000

const STATUS = { success: 'ok', error: 'error', running: 'running' } as const
const STORED_STATUS = { ok: 'success', error: 'error', running: 'running' } as const

/**
 * The newest traces, filtered by session, task, status, or an agent that took part (one that
 * used tokens in it: the usage metrics name the agent, the root span does not).
 */
export async function listTraces(
  storage: SpanStorage,
  query: TraceListQuery,
): Promise<{ traces: TraceSummary[] }> {
  const filters = {
    ...(query.sessionId && { sessionId: query.sessionId }),
    ...(query.taskId && { metadata: { taskId: query.taskId } }),
    ...(query.status && { status: STORED_STATUS[query.status] }),
  } as NonNullable<Parameters<SpanStorage['listTraces']>[0]['filters']>
  if (query.agentId) {
    const { groups } = await storage.getMetricBreakdown({
      name: [INPUT_TOKENS_METRIC],
      groupBy: ['traceId', 'entityId'],
      aggregation: 'count',
      filters: { timestamp: { start: new Date(Date.now() - AGENT_LOOKBACK_MS) } },
    })
    const roots = await Promise.all(
      groups
        .filter((g) => g.dimensions.entityId === query.agentId)
        .map((g) => g.dimensions.traceId)
        .filter((id): id is string => !!id)
        .map((traceId) => storage.getRootSpan({ traceId })),
    )
    const summaries = roots
      .map((r) => r?.span)
      .filter((s): s is StoredSpan => !!s && matches(s, query))
      .map(summaryOf)
    summaries.sort((a, b) => b.startedAt.localeCompare(a.startedAt))
    return { traces: summaries.slice(0, query.limit) }
  }
  const page = await storage.listTraces({
    filters,
    pagination: { page: 0, perPage: query.limit },
    orderBy: { field: 'startedAt', direction: 'DESC' },
  })
  return { traces: page.spans.map((s) => summaryOf(s as StoredSpan)) }
}

function matches(span: StoredSpan, query: TraceListQuery): boolean {
  const meta = (span.metadata ?? {}) as Record<string, unknown>
  if (query.sessionId && span.sessionId !== query.sessionId) return false
  if (query.taskId && meta.taskId !== query.taskId) return false
  return !query.status || statusOf(span) === query.status
}

function statusOf(span: { error?: unknown; endedAt?: Date | string | null }) {
  if (span.error) return STATUS.error
  return span.endedAt ? STATUS.success : STATUS.running
}

function summaryOf(span: StoredSpan): TraceSummary {
  const meta = (span.metadata ?? {}) as Record<string, unknown>
  const attributes = (span.attributes ?? {}) as Record<string, unknown>
  const started = new Date(span.startedAt)
  const ended = span.endedAt ? new Date(span.endedAt) : null
  return {
    traceId: span.traceId,
    name: span.name,
    status: statusOf(span),
    startedAt: started.toISOString(),
    durationMs: ended ? ended.getTime() - started.getTime() : null,
    sessionId: span.sessionId ?? null,
    taskId: typeof meta.taskId === 'string' ? meta.taskId : null,
    model: typeof attributes.model === 'string' ? attributes.model : null,
  }
}

/** One trace, its spans in start order, as a waterfall draws them; null when unknown. */
export async function readTrace(
  storage: SpanStorage,
  traceId: string,
): Promise<TraceDetail | null> {
  const trace = await storage.getTrace({ traceId })
  if (!trace || trace.spans.length === 0) return null
  const spans = [...trace.spans].sort((a, b) => +new Date(a.startedAt) - +new Date(b.startedAt))
  return { traceId, spans: spans.map(spanOf) }
}

function spanOf(span: StoredSpan): TraceSpan {
  const attributes = (span.attributes ?? {}) as Record<string, unknown>
  const text = (v: unknown) => (typeof v === 'string' ? v : v == null ? null : JSON.stringify(v))
  const count = (v: unknown) => (typeof v === 'number' ? v : null)
  const error = span.error as { message?: unknown } | null | undefined
  return {
    spanId: span.spanId,
    parentSpanId: span.parentSpanId ?? null,
    name: span.name,
    type: span.spanType,
    status: statusOf(span),
    startedAt: new Date(span.startedAt).toISOString(),
    endedAt: span.endedAt ? new Date(span.endedAt).toISOString() : null,
    agentId: text(attributes.agentId),
    model: text(attributes.model),
    inputTokens: count(attributes.inputTokens),
    outputTokens: count(attributes.outputTokens),
    input: text(span.input),
    output: text(span.output),
    error: error ? text(error.message) : null,
  }
}

/** Stored log lines, newest first, by trace id, request id or level. */
export async function listLogLines(storage: SpanStorage, query: LogQuery) {
  const page = await storage.listLogs({
    filters: {
      ...(query.traceId && { traceId: query.traceId }),
      ...(query.requestId && { requestId: query.requestId }),
      ...(query.level && { level: query.level }),
    },
    pagination: { page: 0, perPage: query.limit },
    orderBy: { field: 'timestamp', direction: 'DESC' },
  })
  return {
    logs: page.logs.map((l) => ({
      timestamp: new Date(l.timestamp).toISOString(),
      level: l.level,
      message: l.message,
      traceId: l.traceId ?? null,
      requestId: l.requestId ?? null,
      data: l.data ? JSON.stringify(l.data) : null,
    })),
  }
}
