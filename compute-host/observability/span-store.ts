import { ObservabilityStoragePostgresVNext } from '@mastra/pg'
import pg from 'pg'
import type { DatabaseHandle } from '../database/handle.ts'

export type SpanStorage = ObservabilityStoragePostgresVNext
export type SpanRecord = Parameters<SpanStorage['batchCreateSpans']>[0]['records'][number]
export type MetricRecord = Parameters<SpanStorage['batchCreateMetrics']>[0]['metrics'][number]
export type LogRecord = Parameters<SpanStorage['batchCreateLogs']>[0]['logs'][number]

/**
 * Mastra's observability storage for PostgreSQL on the observability database (never the
 * application's): its `mastra_*_events` tables, partitioned by day, in the handle's schema (the
 * `observability` schema inside the single embedded instance). Its own pool, so a slow or absent
 * observability server never holds a connection the run path needs.
 */
export function openSpanStore(handle: DatabaseHandle) {
  // Bounded waits: a write to a database that went away fails (and is counted) instead of hanging.
  const pool = new pg.Pool({
    ...handle.pgPoolConfig(),
    connectionTimeoutMillis: 5_000,
    query_timeout: 15_000,
  })
  // A server that goes away emits 'error' on idle clients; unhandled, it would end the host.
  // The write in flight fails on its own and is counted by the export queue.
  const ignore = () => {}
  pool.on('error', ignore)
  pool.on('connect', (client) => client.on('error', ignore))
  const storage = new ObservabilityStoragePostgresVNext({
    pool,
    ...(handle.schema && { schemaName: handle.schema }),
  })
  return { storage, close: () => pool.end() }
}
