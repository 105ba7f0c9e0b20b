import { randomUUID } from 'node:crypto'
import type { Logger, LogLevel } from '../log.ts'
import type { ExportQueue } from './export-queue.ts'
import { spanPayload } from './span-payload.ts'

const MAX_DATA_CHARS = 4_096

/**
 * A logger that also stores the lines about a run or a request in the observability database, so
 * a trace or a request id finds its log lines: warnings and errors carrying a `traceId` or a
 * `requestId`, and informational lines carrying a `traceId` (a run's start and end). Everything
 * else (health polls, start-up) stays in the process log only. The line is written to the
 * wrapped logger as before; the stored copy is redacted and bounded like a span's payload.
 */
export function forwardingLogger(
  log: Logger,
  queue: Pick<ExportQueue, 'log'>,
  redact: (text: string) => string,
  base: Record<string, unknown> = {},
): Logger {
  const emit = (level: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
    log[level](message, fields)
    const all = { ...base, ...fields }
    const traceId = stringOf(all.traceId)
    const requestId = stringOf(all.requestId)
    const kept = level === 'warn' || level === 'error' ? traceId || requestId : traceId
    if (!kept || level === 'debug') return
    queue.log({
      logId: randomUUID(),
      timestamp: new Date(),
      level,
      message: spanPayload(message, redact, 1_000) ?? '',
      data: { text: spanPayload(all, redact, MAX_DATA_CHARS) },
      traceId: traceId ?? null,
      requestId: requestId ?? null,
      sessionId: stringOf(all.sessionId) ?? null,
      runId: stringOf(all.turnId) ?? stringOf(all.runId) ?? null,
    })
  }
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    child: (fields) => forwardingLogger(log.child(fields), queue, redact, { ...base, ...fields }),
  }
}

const stringOf = (value: unknown) => (typeof value === 'string' && value ? value : undefined)
