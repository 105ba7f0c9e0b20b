/**
 * Background task runner against graphile-worker, the common PostgreSQL job queue for Node, on
 * the same server and database, with the same concurrency and no-op tasks.
 *
 * - Throughput: each round enqueues N tasks in bulk, then starts a worker and times it until
 *   every task has started and every completion is written (outstanding count 0), then stops it.
 *   Rounds alternate which queue goes first; the median per-round ratio is reported. Every
 *   task's starts are counted, so a duplicate (started twice) or a loss (never started) shows.
 * - Enqueue-to-start latency: with both workers idle, single tasks are added one at a time as an
 *   application would (insert and wake); the time runs from just before the enqueue call to the
 *   executor's first line, in this process. Samples alternate between the queues.
 *
 * The database is a fresh one on BENCH_DATABASE_URL's (or TEST_DATABASE_URL's) server, or on a
 * throwaway embedded PostgreSQL when neither is set, and is dropped afterwards.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { migrateDatabase } from '../compute-host/database/migrate.ts'
import { openPostgres } from '../compute-host/database/postgres.ts'
import { createId } from '../runtime/ids.ts'
import { createDatabaseOnServer } from '../test/support/database.ts'
import { startThrowawayPostgres } from '../test/support/throwaway-postgres.ts'
import { median } from './admission.ts'
import type { BenchMode, BenchResult } from './result.ts'
import { graphileQueue, popagentQueue, type Queue } from './task-runner-queues.ts'

const CONCURRENCY = 16
// A round (or a sample) that sees no new start for this long has lost tasks: stop waiting.
const STALL_MS = 15_000
const LATENCY_GAP_MS = 5

type Options = { rounds: number; tasks: number; latencySamples: number }
type Round = { perSecond: number; duplicates: number; losses: number }

const newKeys = (n: number) => Array.from({ length: n }, () => createId('task'))

/** Resolves once `target` distinct keys have started, or after STALL_MS without a new one. */
function startCounter(target: number) {
  const starts = new Map<string, number>()
  let lastStart = performance.now()
  let reached!: () => void
  const done = new Promise<void>((resolve) => (reached = resolve))
  const stall = setInterval(() => {
    if (performance.now() - lastStart > STALL_MS) reached()
  }, 500)
  return {
    starts,
    started(key: string) {
      starts.set(key, (starts.get(key) ?? 0) + 1)
      lastStart = performance.now()
      if (starts.size === target) reached()
    },
    done: done.finally(() => clearInterval(stall)),
  }
}

async function throughputRound(queue: Queue, tasks: number): Promise<Round> {
  const keys = newKeys(tasks)
  await queue.enqueueMany(keys)
  const counter = startCounter(tasks)
  const began = performance.now()
  const stop = await queue.start(counter.started)
  await counter.done
  const deadline = performance.now() + STALL_MS
  while ((await queue.outstanding()) > 0 && performance.now() < deadline) await sleep(2)
  const ms = performance.now() - began
  await stop()
  let duplicates = 0
  let losses = 0
  for (const key of keys) {
    const runs = counter.starts.get(key) ?? 0
    if (runs === 0) losses++
    duplicates += Math.max(0, runs - 1)
  }
  return { perSecond: (tasks * 1000) / ms, duplicates, losses }
}

/** Enqueue-to-start times of single tasks, alternating between the two (idle) queues. */
async function latencies(queues: Queue[], samples: number): Promise<number[][]> {
  const waiting = new Map<string, () => void>()
  const started = (key: string) => waiting.get(key)?.()
  const stops = await Promise.all(queues.map((q) => q.start(started)))
  const times = queues.map((): number[] => [])
  try {
    for (let i = 0; i < samples; i++) {
      for (let j = 0; j < queues.length; j++) {
        const which = (i + j) % queues.length
        const key = createId('task')
        const begun = performance.now()
        const start = new Promise<void>((resolve) => waiting.set(key, resolve))
        await queues[which]!.enqueueOne(key)
        const stalled = new AbortController()
        await Promise.race([start, sleep(STALL_MS, undefined, { signal: stalled.signal })])
        stalled.abort()
        times[which]!.push(performance.now() - begun)
        waiting.delete(key)
        await sleep(LATENCY_GAP_MS)
      }
    }
  } finally {
    await Promise.all(stops.map((stop) => stop()))
  }
  return times
}

/** Nearest-rank percentile. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

const ms = (value: number) => `${value.toFixed(1)} ms`

/** A fresh, migrated database for one bench run, dropped (with its throwaway server) after. */
async function benchDatabase() {
  const given = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL
  const server = given ? undefined : await startThrowawayPostgres()
  const created = await createDatabaseOnServer(given ?? server!.url)
  const handle = openPostgres(created.url, { max: 1 })
  try {
    await migrateDatabase(handle)
  } finally {
    await handle.close()
  }
  return {
    url: created.url,
    async drop() {
      await created.drop()
      await server?.stop()
    },
  }
}

export async function benchTaskRunner({ quick }: BenchMode): Promise<BenchResult[]> {
  const options: Options = quick
    ? { rounds: 3, tasks: 1_000, latencySamples: 30 }
    : { rounds: 9, tasks: 10_000, latencySamples: 300 }
  const database = await benchDatabase()
  const queues: Queue[] = []
  try {
    queues.push(popagentQueue(database.url, CONCURRENCY))
    queues.push(await graphileQueue(database.url, CONCURRENCY))
    const [ours, theirs] = queues as [Queue, Queue]
    for (const queue of queues) await throughputRound(queue, Math.min(500, options.tasks)) // warm
    const ratios: number[] = []
    const rounds: Record<string, Round[]> = { [ours.name]: [], [theirs.name]: [] }
    for (let round = 0; round < options.rounds; round++) {
      const order = round % 2 === 0 ? [ours, theirs] : [theirs, ours]
      for (const queue of order)
        rounds[queue.name]!.push(await throughputRound(queue, options.tasks))
      ratios.push(rounds[ours.name]!.at(-1)!.perSecond / rounds[theirs.name]!.at(-1)!.perSecond)
    }
    const [oursMs, theirsMs] = (await latencies(queues, options.latencySamples)) as [
      number[],
      number[],
    ]
    const rate = (name: string) => Math.round(median(rounds[name]!.map((r) => r.perSecond)))
    const count = (name: string, field: 'duplicates' | 'losses') =>
      rounds[name]!.reduce((sum, r) => sum + r[field], 0)
    return [
      {
        name: 'task runner throughput vs graphile-worker',
        goal: '≥ 3×',
        ratio: median(ratios),
        met: median(ratios) >= 3,
        detail:
          `${rate(ours.name)} vs ${rate(theirs.name)} no-op tasks/s (${options.tasks} tasks, ` +
          `concurrency ${CONCURRENCY}, ${options.rounds} rounds); duplicates ` +
          `${count(ours.name, 'duplicates')}/${count(theirs.name, 'duplicates')}, losses ` +
          `${count(ours.name, 'losses')}/${count(theirs.name, 'losses')} (ours/theirs)`,
      },
      {
        name: 'task enqueue-to-start p99',
        goal: 'p99 ≤ 10 ms, none > 100 ms',
        ratio: percentile(oursMs, 99),
        unit: 'ms',
        met: percentile(oursMs, 99) <= 10 && Math.max(...oursMs) <= 100,
        detail:
          `p50 ${ms(percentile(oursMs, 50))}, p99 ${ms(percentile(oursMs, 99))}, max ` +
          `${ms(Math.max(...oursMs))}; graphile-worker p50 ${ms(percentile(theirsMs, 50))}, ` +
          `p99 ${ms(percentile(theirsMs, 99))} (${options.latencySamples} samples each)`,
      },
    ]
  } finally {
    await Promise.all(queues.map((queue) => queue.close()))
    await database.drop()
  }
}
