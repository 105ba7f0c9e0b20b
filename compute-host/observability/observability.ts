import type { DatabaseHandle } from '../database/handle.ts'
import type { Logger } from '../log.ts'
import { createExportQueue } from './export-queue.ts'
import { createOtlpExporter } from './otlp-exporter.ts'
import { createPriceCache } from './price-cache.ts'
import { startRetentionJob } from './retention-job.ts'
import { createStoreTracer } from './store-tracer.ts'
import { openSpanStore } from './span-store.ts'
import { noopTracer } from './tracer.ts'

const INIT_RETRY_MS = 10_000

/**
 * The host's observability: Mastra's storage on the observability database, the export queue in
 * front of it and the tracer the run path writes to. Start never waits for the storage: its
 * `init()` (tables, the day partitions ahead) runs in the background and is retried until it
 * succeeds, and until then records are dropped and counted. A host whose observability database
 * is down serves turns and tasks all the same; health says what is missing.
 */
export function createObservability(options: {
  handle: DatabaseHandle
  log: Logger
  redact: (text: string) => string
  enabled?: boolean
  flushMs?: number
  /** Run the retention job (at start, then daily at 03:00); on unless told otherwise. */
  retention?: boolean
  /** OTEL_EXPORTER_OTLP_ENDPOINT: spans are also sent there, after redaction. */
  otlpEndpoint?: string | undefined
}) {
  const { log } = options
  const store = openSpanStore(options.handle)
  const retention = startRetentionJob({
    storage: store.storage,
    db: options.handle.db,
    log,
    redact: options.redact,
  })
  let ready = false
  let firstAttempt = true
  let initError: string | undefined
  let stopped = false
  let retry: NodeJS.Timeout | undefined
  const queue = createExportQueue({
    storage: store.storage,
    state: () => (ready ? 'ready' : firstAttempt ? 'starting' : 'down'),
    log,
    ...(options.flushMs !== undefined && { flushMs: options.flushMs }),
    ...(options.otlpEndpoint && { exportSpans: createOtlpExporter(options.otlpEndpoint) }),
  })
  const init = async (): Promise<void> => {
    const started = performance.now()
    try {
      await store.storage.init()
      log.info('observability storage ready', { ms: Math.round(performance.now() - started) })
      ready = true
      initError = undefined
      if (options.retention ?? true) retention.start()
    } catch (error) {
      initError = error instanceof Error ? error.message : String(error)
      firstAttempt = false
      log.warn('observability storage unavailable; retrying', { error, retryMs: INIT_RETRY_MS })
      if (stopped) return
      retry = setTimeout(() => void init(), INIT_RETRY_MS)
      retry.unref()
    }
  }
  const initialised = init()
  const enabled = options.enabled ?? true
  return {
    storage: store.storage,
    queue,
    retention,
    tracer: enabled ? createStoreTracer({ queue, redact: options.redact }) : noopTracer,
    /** The price table for the run path's cost cap, kept in memory. */
    prices: createPriceCache(options.handle.db, log),
    /** Resolves once the first `init()` attempt is over, whatever its outcome. */
    initialised,
    health: () => ({
      tracing: enabled,
      storageReady: ready,
      ...(initError && { error: options.redact(initError) }),
      ...queue.stats(),
    }),
    async close() {
      stopped = true
      clearTimeout(retry)
      await initialised
      await retention.stop()
      await queue.close()
      await store.close()
    },
  }
}

export type Observability = ReturnType<typeof createObservability>
