import { randomUUID } from 'node:crypto'
import { randomHex } from '../../runtime/ids.ts'
import { EntityType, SpanType } from '@mastra/core/observability'
import type { ExportQueue } from './export-queue.ts'
import { spanPayload } from './span-payload.ts'
import type { MetricRecord, SpanRecord } from './span-store.ts'
import type { Span, SpanAttributes, SpanDetail, SpanKind, SpanStatus, Tracer } from './tracer.ts'

const SPAN_TYPES: Record<SpanKind, SpanType> = {
  run: SpanType.GENERIC,
  agent: SpanType.AGENT_RUN,
  model: SpanType.MODEL_GENERATION,
  tool: SpanType.TOOL_CALL,
  generic: SpanType.GENERIC,
}

/** The gateway is the one provider the host talks to; models are named by their gateway route. */
export const USAGE_PROVIDER = 'gateway'
export const INPUT_TOKENS_METRIC = 'mastra_model_total_input_tokens'
export const OUTPUT_TOKENS_METRIC = 'mastra_model_total_output_tokens'
export const CACHED_INPUT_TOKENS_METRIC = 'mastra_model_input_cache_read_tokens'

// Attributes that Mastra's span rows hold as columns (filtered and grouped on), not as attributes.
type TraceContext = {
  traceId: string
  sessionId?: string
  runId?: string
  requestId?: string
  taskId?: string
}

/**
 * The host's tracer: spans in Mastra's observability storage, queued and written in batches
 * (export-queue.ts), never awaited by the run. A span is stored once, when it ends, with its
 * payloads bounded and redacted here; every span of a trace carries the root's session, run and
 * request ids, so a trace is found by any of them. A span ending with token counts (`inputTokens`,
 * `outputTokens`, `cachedInputTokens` and `model` attributes) also records them as usage metrics
 * under its agent, which is what cost and usage are computed from.
 */
export function createStoreTracer(options: {
  queue: ExportQueue
  redact: (text: string) => string
}): Tracer {
  const { queue, redact } = options

  function open(
    context: TraceContext,
    parentSpanId: string | undefined,
    name: string,
    attributes: SpanAttributes,
    detail: SpanDetail,
  ): Span {
    const spanId = randomHex(8)
    const startedAt = new Date(detail.startedAt ?? Date.now())
    const kind = detail.kind ?? (parentSpanId ? 'generic' : 'run')
    const input = spanPayload(detail.input, redact)
    let ended = false
    return {
      child: (childName, childAttributes = {}, childDetail = {}) =>
        open(context, spanId, childName, childAttributes, childDetail),
      end(status = 'ok', endAttributes = {}, endDetail = {}) {
        if (ended) return
        ended = true
        const all = { ...attributes, ...endAttributes }
        const record = spanRecord({ context, spanId, parentSpanId, name, kind, startedAt, all })
        record.attributes = cleanAttributes(record.attributes ?? {}, redact)
        record.input = input ?? null
        record.output = spanPayload(endDetail.output, redact) ?? null
        record.error = errorOf(status, endDetail.error, redact)
        queue.span(record)
        for (const metric of usageMetrics(record, all, context)) queue.metric(metric)
      },
    }
  }

  return {
    startSpan(name, { traceId, ...attributes } = {}, detail = {}) {
      const context: TraceContext = {
        traceId: traceId ?? randomHex(16),
        ...stringField('sessionId', attributes.sessionId),
        ...stringField('runId', attributes.runId),
        ...stringField('requestId', attributes.requestId),
        ...stringField('taskId', attributes.taskId),
      }
      return open(context, undefined, name, attributes, detail)
    },
  }
}

function spanRecord(span: {
  context: TraceContext
  spanId: string
  parentSpanId: string | undefined
  name: string
  kind: SpanKind
  startedAt: Date
  all: SpanAttributes
}): SpanRecord {
  const { context, all } = span
  const { agentId, agentName, tool, ...rest } = all
  const isAgent = span.kind === 'agent' || span.kind === 'model'
  return {
    traceId: context.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId ?? null,
    name: span.name,
    spanType: SPAN_TYPES[span.kind],
    isEvent: false,
    startedAt: span.startedAt,
    endedAt: new Date(),
    sessionId: context.sessionId ?? null,
    runId: context.runId ?? null,
    requestId: context.requestId ?? null,
    ...(isAgent &&
      typeof agentId === 'string' && { entityType: EntityType.AGENT, entityId: agentId }),
    ...(isAgent && typeof agentName === 'string' && { entityName: agentName }),
    ...(span.kind === 'tool' &&
      typeof tool === 'string' && { entityType: EntityType.TOOL, entityName: tool }),
    attributes: definedOnly({ agentId, agentName, tool, ...rest }),
    // A root says which run it is, where a trace list can filter on it.
    ...(!span.parentSpanId && {
      metadata: definedOnly({
        kind: rest.kind,
        taskId: rest.taskId,
        attempt: rest.attempt,
        workspaceId: rest.workspaceId,
      }),
    }),
  }
}

function usageMetrics(
  span: SpanRecord,
  all: SpanAttributes,
  context: TraceContext,
): MetricRecord[] {
  const model = typeof all.model === 'string' ? all.model : undefined
  if (!model) return []
  const counts: Array<[string, unknown]> = [
    [INPUT_TOKENS_METRIC, all.inputTokens],
    [OUTPUT_TOKENS_METRIC, all.outputTokens],
    [CACHED_INPUT_TOKENS_METRIC, all.cachedInputTokens],
  ]
  return counts
    .filter((c): c is [string, number] => typeof c[1] === 'number' && c[1] > 0)
    .map(([name, value]) => ({
      metricId: randomUUID(),
      timestamp: span.endedAt ?? new Date(),
      name,
      value,
      traceId: span.traceId,
      spanId: span.spanId,
      sessionId: span.sessionId ?? null,
      runId: span.runId ?? null,
      entityType: EntityType.AGENT,
      entityId: typeof all.agentId === 'string' ? all.agentId : null,
      entityName: typeof all.agentName === 'string' ? all.agentName : null,
      provider: USAGE_PROVIDER,
      model,
      labels: definedLabels({ taskId: context.taskId }),
    }))
}

function errorOf(status: SpanStatus, error: unknown, redact: (text: string) => string) {
  if (status === 'ok') return null
  const message = spanPayload(error, redact, 2_000) ?? (status === 'aborted' ? 'aborted' : 'failed')
  return { message, status }
}

const stringField = <K extends string>(key: K, value: unknown) =>
  (typeof value === 'string' ? { [key]: value } : {}) as Partial<Record<K, string>>

function definedOnly(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined))
}

// Attribute values are mostly ids, but a tool or agent name comes from the owner's data.
function cleanAttributes(values: Record<string, unknown>, redact: (text: string) => string) {
  return Object.fromEntries(
    Object.entries(values).map(([k, v]) => [
      k,
      typeof v === 'string' ? spanPayload(v, redact, 2_000) : v,
    ]),
  )
}

function definedLabels(values: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values)
      .filter(([, v]) => v !== undefined && v !== null)
      .map(([k, v]) => [k, String(v)]),
  )
}
