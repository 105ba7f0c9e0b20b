/**
 * The host's tracing seam. The run path opens a span per chat turn and per task attempt and a
 * child per tool call or delegation; what a span becomes (Mastra observability spans in the
 * observability database, an OTLP export) is the tracer's business, not the caller's. The host's
 * tracer writes them to the observability database (store-tracer.ts); `noopTracer` records
 * nothing, for a host or a test that does not trace.
 */

/** Flat values only, so any exporter can store them; secrets must be redacted by the caller. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean | undefined>>

/** How the traced work ended. `aborted` is a client or shutdown abort, not a failure. */
export type SpanStatus = 'ok' | 'error' | 'aborted'

/** What kind of work a span is, so a trace view can tell a model call from a tool call. */
export type SpanKind = 'run' | 'agent' | 'model' | 'tool' | 'generic'

/**
 * A span's payloads, raw: the tracer bounds and redacts them before anything stores or sends
 * them (they are hostile: model output, tool results, web pages).
 */
export type SpanDetail = {
  kind?: SpanKind
  input?: unknown
  output?: unknown
  error?: unknown
  /** When the work began (epoch ms), for work reported after it happened (a model step). */
  startedAt?: number
}

export type Span = {
  /** A span for work done inside this one (a tool call in a turn), in the same trace. */
  child(name: string, attributes?: SpanAttributes, detail?: SpanDetail): Span
  /** Ends the span; only the first call counts, so every exit path may call it. */
  end(status?: SpanStatus, attributes?: SpanAttributes, detail?: SpanDetail): void
}

export type Tracer = {
  /**
   * Opens a root span. `traceId` (32 hex) joins the span to the trace id the caller already
   * reports (a turn's message metadata, a task attempt's row), so both name the same trace.
   */
  startSpan(
    name: string,
    attributes?: SpanAttributes & { traceId?: string },
    detail?: SpanDetail,
  ): Span
}

const noopSpan: Span = {
  child: () => noopSpan,
  end: () => {},
}

/** Records nothing: the tracer of a host whose observability storage is not built yet. */
export const noopTracer: Tracer = { startSpan: () => noopSpan }
