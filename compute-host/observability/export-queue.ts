import type { Logger } from '../log.ts'
import type { LogRecord, MetricRecord, SpanRecord, SpanStorage } from './span-store.ts'

export type ExportStats = {
  /** Records stored since the host started. */
  written: number
  /** Spans sent to the OTLP collector, and those whose send failed. */
  exported: number
  exportFailed: number
  /** Records given up: the store failed or was not ready, or the queue was full. */
  dropped: number
  queued: number
  lastError?: string
}

type Pending = { spans: SpanRecord[]; metrics: MetricRecord[]; logs: LogRecord[] }

const FLUSH_MS = 250
const MAX_QUEUED = 5_000
const WARN_EVERY_MS = 30_000

/**
 * Between the run path and the observability database: records are queued in memory and written
 * in batches off the run's critical path, so tracing never adds a database round trip before a
 * model's first token. The run never waits for it and never fails because of it: a write that
 * fails, or a queue at its bound while the database is away, drops records and counts them, with a
 * warning at most every 30 s. Dropped records are not retried: a span is worth less than keeping
 * the host's memory bounded.
 */
export function createExportQueue(options: {
  storage: SpanStorage
  /**
   * Whether the storage's tables exist: `ready` once its `init()` succeeded, `starting` while the
   * first attempt runs (records wait in the queue), `down` after an attempt failed (dropped).
   */
  state: () => 'ready' | 'starting' | 'down'
  log: Logger
  flushMs?: number
  maxQueued?: number
  /** Also sends each batch of spans elsewhere (an OTLP collector); a failure is counted. */
  exportSpans?: (spans: readonly SpanRecord[]) => Promise<void>
}) {
  const { storage, log } = options
  const maxQueued = options.maxQueued ?? MAX_QUEUED
  let pending: Pending = { spans: [], metrics: [], logs: [] }
  const stats: ExportStats = { written: 0, dropped: 0, queued: 0, exported: 0, exportFailed: 0 }
  let lastWarned = 0
  let flushing: Promise<void> | undefined
  let timer: NodeJS.Timeout | undefined

  const count = (p: Pending) => p.spans.length + p.metrics.length + p.logs.length
  const drop = (n: number, reason: string, error?: unknown) => {
    stats.dropped += n
    if (error !== undefined) stats.lastError = error instanceof Error ? error.message : reason
    const now = Date.now()
    if (now - lastWarned < WARN_EVERY_MS) return
    lastWarned = now
    log.warn('observability records dropped', { reason, dropped: n, totalDropped: stats.dropped })
  }
  const schedule = () => {
    timer ??= setTimeout(() => {
      timer = undefined
      void flush()
    }, options.flushMs ?? FLUSH_MS)
    timer.unref()
  }
  const enqueue = <K extends keyof Pending>(kind: K, record: Pending[K][number]) => {
    if (stats.queued >= maxQueued) return drop(1, 'queue full')
    ;(pending[kind] as Pending[K][number][]).push(record)
    stats.queued++
    schedule()
  }

  // Each kind on its own: a metric the storage refuses does not take the trace's spans with it.
  async function write(batch: Pending) {
    if (options.state() === 'starting') {
      // Held for the first init(): a host's first turns are traced too. The bound still holds.
      for (const kind of ['spans', 'metrics', 'logs'] as const) {
        for (const record of batch[kind]) enqueue(kind, record as never)
      }
      return
    }
    const parts: Array<[number, () => Promise<void>]> = [
      [batch.spans.length, () => storage.batchCreateSpans({ records: batch.spans })],
      [batch.metrics.length, () => storage.batchCreateMetrics({ metrics: batch.metrics })],
      [batch.logs.length, () => storage.batchCreateLogs({ logs: batch.logs })],
    ]
    // The collector hears of the spans whether or not the database takes them.
    const exported = batch.spans.length > 0 && options.exportSpans?.(batch.spans)
    await Promise.all([
      exported &&
        exported.then(
          () => void (stats.exported += batch.spans.length),
          (error: unknown) => {
            stats.exportFailed += batch.spans.length
            stats.lastError = error instanceof Error ? error.message : 'OTLP export failed'
          },
        ),
      ...parts.map(async ([n, store]) => {
        if (n === 0) return
        if (options.state() !== 'ready') return drop(n, 'observability storage not ready')
        try {
          await store()
          stats.written += n
        } catch (error) {
          drop(n, 'observability write failed', error)
        }
      }),
    ])
  }

  /** Writes everything queued so far; resolves when it is stored or dropped. */
  async function flush(): Promise<void> {
    while (flushing) await flushing
    const batch = pending
    if (count(batch) === 0) return
    pending = { spans: [], metrics: [], logs: [] }
    stats.queued -= count(batch)
    flushing = write(batch).finally(() => (flushing = undefined))
    await flushing
  }

  return {
    span: (record: SpanRecord) => enqueue('spans', record),
    metric: (record: MetricRecord) => enqueue('metrics', record),
    log: (record: LogRecord) => enqueue('logs', record),
    flush,
    stats: (): ExportStats => ({ ...stats }),
    close: async () => {
      clearTimeout(timer)
      timer = undefined
      await flush()
    },
  }
}

export type ExportQueue = ReturnType<typeof createExportQueue>
