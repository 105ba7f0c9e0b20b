import type { SpanRecord } from './span-store.ts'

const TIMEOUT_MS = 5_000

type OtlpValue = { stringValue: string } | { doubleValue: number } | { boolValue: boolean }

/**
 * Sends spans to an OpenTelemetry collector as OTLP/HTTP JSON (`<endpoint>/v1/traces`, as
 * OTEL_EXPORTER_OTLP_ENDPOINT means). It is handed the spans the export queue stores, which the
 * tracer has already redacted and bounded, so nothing reaches the collector that the
 * observability database would not hold. A failed send is the caller's to count; never retried.
 */
export function createOtlpExporter(endpoint: string) {
  const url = new URL('v1/traces', endpoint.endsWith('/') ? endpoint : `${endpoint}/`)
  return async (spans: readonly SpanRecord[]): Promise<void> => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(toOtlp(spans)),
      signal: AbortSignal.timeout(TIMEOUT_MS),
      redirect: 'error',
    })
    await res.body?.cancel()
    if (!res.ok) throw new Error(`the OTLP collector answered ${res.status}`)
  }
}

function toOtlp(spans: readonly SpanRecord[]) {
  return {
    resourceSpans: [
      {
        resource: { attributes: [attribute('service.name', 'popagent')] },
        scopeSpans: [{ scope: { name: 'popagent' }, spans: spans.map(toSpan) }],
      },
    ],
  }
}

function toSpan(span: SpanRecord) {
  const nanos = (d: Date | null | undefined) =>
    `${BigInt((d ?? new Date()).getTime()) * 1_000_000n}`
  const fields: Record<string, unknown> = {
    ...(span.attributes ?? {}),
    'popagent.span_type': span.spanType,
    'popagent.session_id': span.sessionId ?? undefined,
    'popagent.run_id': span.runId ?? undefined,
    'popagent.input': typeof span.input === 'string' ? span.input : undefined,
    'popagent.output': typeof span.output === 'string' ? span.output : undefined,
  }
  const error = span.error as { message?: string } | null | undefined
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    ...(span.parentSpanId && { parentSpanId: span.parentSpanId }),
    name: span.name,
    kind: 1,
    startTimeUnixNano: nanos(span.startedAt),
    endTimeUnixNano: nanos(span.endedAt),
    attributes: Object.entries(fields)
      .filter(([, v]) => v !== undefined && v !== null)
      .map(([k, v]) => attribute(k, v)),
    status: error ? { code: 2, message: error.message ?? 'error' } : { code: 1 },
  }
}

function attribute(key: string, value: unknown): { key: string; value: OtlpValue } {
  if (typeof value === 'number') return { key, value: { doubleValue: value } }
  if (typeof value === 'boolean') return { key, value: { boolValue: value } }
  return { key, value: { stringValue: typeof value === 'string' ? value : JSON.stringify(value) } }
}
