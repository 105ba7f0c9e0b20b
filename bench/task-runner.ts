/**
 * Background task runner against graphile-worker and pg-boss, the common PostgreSQL job queues
 * for Node, on the same server and database (each in its own schema), with the same concurrency
 * and no-op tasks.
 *
 * - Throughput: each round enqueues N tasks in bulk, then starts a worker and times it until
 *   every task has started and every completion is written (outstanding count 0), then stops it.
 *   The queues' order rotates from round to round; the median of the per-round ratios (ours over
 *   each peer) is reported. Every task's starts are counted, so a duplicate (started twice) or a
 *   loss (never started) shows, for every queue.
 * - Enqueue-to-start latency: with every worker idle, single tasks are added one at a time as an
 *   application would (insert and wake); the time runs from just before the enqueue call to the
 *   executor's first line, in this process. Samples rotate between the queues.
 *
 * The database is a fresh one on BENCH_DATABASE_URL's (or TEST_DATABASE_URL's) server, or on a
 * throwaway embedded PostgreSQL when neither is set, and is dropped afterwards.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { createId } from '../runtime/ids.ts'
import { median, percentile } from './stats.ts'
import { benchDatabase } from './database.ts'
import type { BenchMode, BenchResult } from './result.ts'
import { pgBossQueue } from './task-runner-pgboss.ts'
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

/** Enqueue-to-start times of single tasks, rotating between the (idle) queues. */
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

const ms = (value: number) => `${value.toFixed(1)} ms`

export async function benchTaskRunner({ quick }: BenchMode): Promise<BenchResult[]> {
  const options: Options = quick
    ? { rounds: 3, tasks: 1_000, latencySamples: 30 }
    : { rounds: 9, tasks: 10_000, latencySamples: 300 }
  const database = await benchDatabase()
  const queues: Queue[] = []
  try {
    queues.push(popagentQueue(database.url, CONCURRENCY))
    queues.push(await graphileQueue(database.url, CONCURRENCY))
    queues.push(await pgBossQueue(database.url, CONCURRENCY))
    const [ours, ...peers] = queues as [Queue, ...Queue[]]
    for (const queue of queues) await throughputRound(queue, Math.min(500, options.tasks)) // warm
    const rounds = new Map<Queue, Round[]>(queues.map((q) => [q, []]))
    const ratios = new Map<Queue, number[]>(peers.map((q) => [q, []]))
    for (let round = 0; round < options.rounds; round++) {
      const order = queues.map((_, i) => queues[(i + round) % queues.length]!)
      for (const queue of order)
        rounds.get(queue)!.push(await throughputRound(queue, options.tasks))
      const ourRate = rounds.get(ours)!.at(-1)!.perSecond
      for (const peer of peers)
        ratios.get(peer)!.push(ourRate / rounds.get(peer)!.at(-1)!.perSecond)
    }
    const times = await latencies(queues, options.latencySamples)
    const oursMs = times[0]!
    const rate = (q: Queue) => Math.round(median(rounds.get(q)!.map((r) => r.perSecond)))
    const count = (field: 'duplicates' | 'losses') =>
      queues.map((q) => rounds.get(q)!.reduce((sum, r) => sum + r[field], 0)).join('/')
    const names = queues.map((q) => q.name).join('/')
    const throughput = peers.map((peer): BenchResult => {
      const ratio = median(ratios.get(peer)!)
      return {
        name: `task runner throughput vs ${peer.name}`,
        goal: '≥ 3×',
        ratio,
        met: ratio >= 3,
        detail:
          `${rate(ours)} vs ${rate(peer)} no-op tasks/s (${options.tasks} tasks, ` +
          `concurrency ${CONCURRENCY}, ${options.rounds} rounds); duplicates ${count('duplicates')}, ` +
          `losses ${count('losses')} (${names})`,
      }
    })
    const peerLatency = peers
      .map((peer, i) => {
        const t = times[i + 1]!
        return `${peer.name} p50 ${ms(percentile(t, 50))}, p99 ${ms(percentile(t, 99))}`
      })
      .join('; ')
    return [
      ...throughput,
      {
        name: 'task enqueue-to-start p99',
        goal: 'p99 ≤ 10 ms, none > 100 ms',
        ratio: percentile(oursMs, 99),
        unit: 'ms',
        met: percentile(oursMs, 99) <= 10 && Math.max(...oursMs) <= 100,
        detail:
          `p50 ${ms(percentile(oursMs, 50))}, p99 ${ms(percentile(oursMs, 99))}, max ` +
          `${ms(Math.max(...oursMs))}; ${peerLatency} (${options.latencySamples} samples each)`,
      },
    ]
  } finally {
    await Promise.all(queues.map((queue) => queue.close()))
    await database.drop()
  }
}
