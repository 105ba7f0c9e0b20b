/**
 * Local-model admission overhead: acquire/release through our FIFO queue against p-limit, the
 * common npm limiter, on the same workload in the same process. Each round runs both, in
 * alternating order, and the ratio of the two times is kept; the median ratio is reported.
 */
import pLimit from 'p-limit'
import { createAdmissionQueue } from '../compute-host/models/admission-queue.ts'
import type { BenchMode, BenchResult } from './result.ts'
import { median } from './stats.ts'

const LIMIT = 2

async function ours(tasks: number): Promise<number> {
  const queue = createAdmissionQueue(LIMIT)
  const started = performance.now()
  await Promise.all(
    Array.from({ length: tasks }, async () => {
      const lease = await queue.acquire()
      try {
        await Promise.resolve()
      } finally {
        lease.release()
      }
    }),
  )
  return performance.now() - started
}

async function theirs(tasks: number): Promise<number> {
  const limit = pLimit(LIMIT)
  const started = performance.now()
  await Promise.all(Array.from({ length: tasks }, () => limit(() => Promise.resolve())))
  return performance.now() - started
}

export async function benchAdmission({ quick }: BenchMode): Promise<BenchResult[]> {
  const options = quick ? { rounds: 3, tasks: 2_000 } : { rounds: 15, tasks: 100_000 }
  const ratios: number[] = []
  const oursNs: number[] = []
  const theirsNs: number[] = []
  await ours(1_000) // warm both paths
  await theirs(1_000)
  for (let round = 0; round < options.rounds; round++) {
    const first = round % 2 === 0
    const a = first ? await ours(options.tasks) : 0
    const b = await theirs(options.tasks)
    const c = first ? a : await ours(options.tasks)
    ratios.push(c / b)
    oursNs.push((c * 1e6) / options.tasks)
    theirsNs.push((b * 1e6) / options.tasks)
  }
  const ratio = median(ratios)
  return [
    {
      name: 'local-model admission vs p-limit',
      goal: '≤ 1.0×',
      ratio,
      met: ratio <= 1,
      detail: `${Math.round(median(oursNs))} ns vs ${Math.round(median(theirsNs))} ns per acquire/release (${options.tasks} tasks, limit ${LIMIT}, ${options.rounds} rounds)`,
    },
  ]
}
