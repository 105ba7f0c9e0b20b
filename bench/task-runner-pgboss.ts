/**
 * pg-boss 12 as the third queue of the task-runner benchmark, in its own schema (`pgboss`) of the
 * bench database. Configured to do its best within the same limits as the others:
 *
 * - Concurrency: one worker (`localConcurrency: 1`) fetching `batchSize: concurrency` jobs, so
 *   at most `concurrency` jobs are in flight; the handler starts the batch's jobs and pg-boss
 *   completes the batch in one statement. `burstWhenBatchFull` fetches again at once while
 *   batches come back full. This is pg-boss's fastest shape here: measured in one run, 1 worker of
 *   16 did 3,672 tasks/s, 4 workers of 4 about 1,060/s, and 16 workers of 1 (no burst for batches
 *   of one, so each worker waits its polling interval after every job) a few dozen per second.
 * - Wake-ups: the queue has `notify: true` and the instance `useListenNotify`, so a `send` wakes
 *   the workers at once, as our trigger and graphile-worker's do. Polling is the backstop at
 *   pg-boss's minimum interval, 0.5 s (`pollingIntervalSeconds` and
 *   `notifyPollingIntervalSeconds`; pg-boss refuses less).
 * - Pools: the worker instance gets `concurrency + 2` connections (what the others get), the
 *   application instance 4; both are created once and kept across rounds. Neither schedules cron
 *   work; the worker instance supervises (maintenance) as pg-boss does by default.
 * - Throughput rounds enqueue with `insert` (1,000 jobs a statement), single tasks with `send`.
 */
import { PgBoss } from 'pg-boss'
import type { Queue } from './task-runner-queues.ts'

const SCHEMA = 'pgboss'
const NAME = 'noop'
const CHUNK = 1_000
// pg-boss's floor for both polling intervals (attorney.js: MIN_POLLING_INTERVAL_MS = 500).
const MIN_POLL_SECONDS = 0.5

export async function pgBossQueue(url: string, concurrency: number): Promise<Queue> {
  const common = { connectionString: url, schema: SCHEMA, schedule: false }
  const app = new PgBoss({ ...common, max: 4, supervise: false })
  const worker = new PgBoss({ ...common, max: concurrency + 2, useListenNotify: true })
  // Errors surface as events; an unhandled 'error' event would end the process.
  for (const boss of [app, worker]) boss.on('error', () => {})
  await app.start()
  await app.createQueue(NAME, { notify: true })
  await worker.start()
  return {
    name: 'pg-boss',
    async enqueueMany(keys) {
      for (let i = 0; i < keys.length; i += CHUNK) {
        await app.insert(
          NAME,
          keys.slice(i, i + CHUNK).map((key) => ({ data: { key } })),
        )
      }
    },
    async enqueueOne(key) {
      await app.send(NAME, { key })
    },
    async start(started) {
      await worker.work<{ key: string }>(
        NAME,
        {
          localConcurrency: 1,
          batchSize: concurrency,
          burstWhenBatchFull: true,
          pollingIntervalSeconds: MIN_POLL_SECONDS,
          notifyPollingIntervalSeconds: MIN_POLL_SECONDS,
        },
        async (jobs) => {
          for (const job of jobs) started(job.data.key)
        },
      )
      return () => worker.offWork(NAME, { wait: true })
    },
    // Completed jobs stay in the table (state `completed`) until retention removes them.
    async outstanding() {
      const db = app.getDb()
      const { rows } = await db.executeSql(
        `select count(*)::int as n from ${SCHEMA}.job where name = $1 and state < 'completed'`,
        [NAME],
      )
      return (rows[0] as { n: number }).n
    },
    async close() {
      await worker.stop({ graceful: false, close: true })
      await app.stop({ graceful: false, close: true })
    },
  }
}
