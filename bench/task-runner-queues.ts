/**
 * The two queues the task-runner benchmark compares, behind one shape: popagent's runner and
 * graphile-worker, each with no-op tasks keyed by a string the benchmark chooses, so it can see
 * every start (and so every duplicate or loss). Both sides get the same worker concurrency and a
 * worker pool of the same size, created once and kept across rounds, so no round pays for
 * connecting; bulk enqueues and the outstanding count go through a second, "application" pool.
 */
import { inArray } from '../db/drizzle-orm.ts'
import { Logger, makeWorkerUtils, run } from 'graphile-worker'
import pg from 'pg'
import { tasks } from '../db/schema/index.ts'
import { openNodePostgres } from '../compute-host/database/postgres.ts'
import { createLogger } from '../compute-host/log.ts'
import { createTaskRunner } from '../compute-host/tasks/runner.ts'
import { enqueue } from '../runtime/tasks/index.ts'
import { userTask } from '../test/support/task-runner.ts'

export type Queue = {
  name: string
  /** Bulk insert, 1,000 rows a statement, without waking anyone (workers start after). */
  enqueueMany(keys: string[]): Promise<void>
  /** One task as an application adds it: insert and wake the workers. */
  enqueueOne(key: string): Promise<void>
  /** Starts a worker whose no-op task calls `started(key)` first; resolves with its stop. */
  start(started: (key: string) => void): Promise<() => Promise<void>>
  /** Tasks not yet recorded as done in the database (queued, running, or done unwritten). */
  outstanding(): Promise<number>
  close(): Promise<void>
}

const CHUNK = 1_000
// Graphile-worker's recommended pool size, given to both.
const poolSize = (concurrency: number) => concurrency + 2

function chunks<T>(items: T[]): T[][] {
  return Array.from({ length: Math.ceil(items.length / CHUNK) }, (_, i) =>
    items.slice(i * CHUNK, (i + 1) * CHUNK),
  )
}

export function popagentQueue(url: string, concurrency: number): Queue {
  const app = openNodePostgres(url, { max: 4, applicationName: 'bench-app' })
  const host = openNodePostgres(url, {
    max: poolSize(concurrency),
    applicationName: 'bench-runner',
  })
  const log = createLogger({ secrets: [], write: () => {} })
  // Polls as often as graphile-worker is told to; the rest as the host's defaults would have it.
  const timing = {
    concurrency,
    pollIntervalMs: 1_000,
    timeoutMs: 60_000,
    abortAckMs: 1_000,
    staleAfterMs: 60 * 60_000,
  }
  return {
    name: 'popagent',
    async enqueueMany(keys) {
      for (const chunk of chunks(keys)) {
        await app.db.insert(tasks).values(chunk.map((id) => ({ ...userTask('ok'), id })))
      }
    },
    async enqueueOne(key) {
      await enqueue(app.db, { ...userTask('ok'), id: key })
    },
    async start(started) {
      const runner = createTaskRunner({
        handle: host,
        log,
        redact: (text) => text,
        timing: async () => timing,
        async execute(task) {
          started(task.id)
          return { result: 'ok' }
        },
      })
      await runner.start()
      return () => runner.stop()
    },
    outstanding: () => app.db.$count(tasks, inArray(tasks.state, ['queued', 'running'])),
    async close() {
      await Promise.all([app.close(), host.close()])
    },
  }
}

export async function graphileQueue(url: string, concurrency: number): Promise<Queue> {
  const logger = new Logger(() => () => {})
  const app = await makeWorkerUtils({ connectionString: url, maxPoolSize: 4, logger })
  await app.migrate()
  const pgPool = new pg.Pool({ connectionString: url, max: poolSize(concurrency) })
  // graphile-worker warns about a pool that could crash the process on a lost connection.
  pgPool.on('error', () => {})
  pgPool.on('connect', (client) => client.on('error', () => {}))
  return {
    name: 'graphile-worker',
    async enqueueMany(keys) {
      for (const chunk of chunks(keys)) {
        await app.addJobs(chunk.map((key) => ({ identifier: 'noop', payload: { key } })))
      }
    },
    async enqueueOne(key) {
      await app.addJob('noop', { key })
    },
    async start(started) {
      const runner = await run({
        pgPool,
        logger,
        concurrency,
        noHandleSignals: true,
        pollInterval: 1_000,
        taskList: { noop: async (payload) => started((payload as { key: string }).key) },
      })
      return () => runner.stop()
    },
    // Completed jobs are deleted; graphile-worker writes a completion after the task's promise
    // resolves, without the worker waiting for it.
    outstanding: () =>
      app.withPgClient(async (client) => {
        const { rows } = await client.query<{ n: number }>(
          'select count(*)::int as n from graphile_worker._private_jobs',
        )
        return rows[0]!.n
      }),
    async close() {
      await app.release()
      await pgPool.end()
    },
  }
}
