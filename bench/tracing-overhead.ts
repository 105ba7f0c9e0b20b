/**
 * What tracing costs a chat turn (X7): two real stacks side by side, each a compute host and its
 * Node edge in their own processes on the same scripted gateway (24 streamed deltas, no delay),
 * one with POPAGENT_TRACING=on (spans, usage metrics and log lines queued and written to its own
 * observability PostgreSQL in batches) and one with it off. "Server CPU" is host + edge CPU time
 * (user + system) over a batch of turns, per turn; PostgreSQL's is counted for neither. Rounds
 * rotate which side goes first and the figure is the median of per-round ratios (on / off).
 *
 * Storage per turn is what the traced side's observability tables (Mastra's `mastra_*` event
 * tables, their partitions and indexes) grew by over the measured turns, divided by them: pages
 * are 8 KB, so it is measured over many turns, after the host's queue has flushed.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import postgres from 'postgres'
import { benchResources, popagent, type Side } from './chat-turn.ts'
import { startServer, type ServerProcess } from './chat-turn-servers.ts'
import type { BenchMode, BenchResult } from './result.ts'
import { median } from './stats.ts'

// Longer than the export queue's 250 ms flush: a turn's spans are written after its stream ends.
const SETTLE_MS = 600

async function cpuPerTurn(side: Side, turns: number, concurrency: number) {
  const ids = await side.prepare(turns)
  const cpu = async () =>
    (await Promise.all(side.servers.map((s) => s.cpuMs()))).reduce((a, b) => a + b, 0)
  const before = await cpu()
  let taken = 0
  const worker = async () => {
    while (taken < ids.length) await side.turn(ids[taken++]!)
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  await sleep(SETTLE_MS)
  return ((await cpu()) - before) / turns
}

async function observabilityBytes(url: string): Promise<number> {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  try {
    const [row] = await sql`
      select coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint as bytes
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind = 'r' and c.relname like 'mastra\\_%'`
    return Number(row!.bytes)
  } finally {
    await sql.end({ timeout: 5 })
  }
}

export async function benchTracingOverhead({ quick }: BenchMode): Promise<BenchResult[]> {
  const options = quick
    ? { rounds: 2, warm: 4, turns: 8, concurrency: 4 }
    : { rounds: 6, warm: 30, turns: 60, concurrency: 4 }
  const resources = await benchResources(4, 'popagent-bench-tracing-')
  const { databases, workspaceRoot, processes } = resources
  try {
    const gateway = await startServer('gateway')
    processes.push(gateway)
    const stack = async (tracing: 'on' | 'off', app: string, observability: string) => {
      const host: ServerProcess = await startServer('host', {
        databaseUrl: app,
        observabilityUrl: observability,
        gatewayUrl: gateway.url,
        workspaceRoot,
        tracing,
      })
      processes.push(host)
      const edge = await startServer('edge', { databaseUrl: app, hostUrl: host.url })
      processes.push(edge)
      return { ...popagent(host, edge), name: `tracing ${tracing}` }
    }
    const [appOn, obsOn, appOff, obsOff] = databases.map((d) => d.url) as [
      string,
      string,
      string,
      string,
    ]
    const sides = [await stack('on', appOn, obsOn), await stack('off', appOff, obsOff)]
    for (const side of sides) await cpuPerTurn(side, options.warm, options.concurrency)
    const ratios: number[] = []
    const cpu: Record<string, number[]> = { on: [], off: [] }
    let bytes = 0
    for (let round = 0; round < options.rounds; round++) {
      const order = round % 2 === 0 ? sides : [...sides].reverse()
      const measured: Record<string, number> = {}
      for (const side of order) {
        const before = side === sides[0] ? await observabilityBytes(obsOn) : 0
        measured[side.name] = await cpuPerTurn(side, options.turns, options.concurrency)
        if (side === sides[0]) bytes += (await observabilityBytes(obsOn)) - before
      }
      ratios.push(measured['tracing on']! / measured['tracing off']!)
      cpu.on!.push(measured['tracing on']!)
      cpu.off!.push(measured['tracing off']!)
    }
    const ratio = median(ratios)
    const perTurn = bytes / (options.rounds * options.turns)
    const untraced = await observabilityBytes(obsOff)
    return [
      {
        name: 'tracing on vs off, server CPU per turn',
        goal: '≤ 1.10×',
        ratio,
        met: ratio <= 1.1,
        detail:
          `host + edge CPU ${median(cpu.on!).toFixed(1)} vs ${median(cpu.off!).toFixed(1)} ` +
          `ms/turn; ${options.turns} turns × ${options.rounds} rounds, ` +
          `${options.concurrency} at a time`,
      },
      {
        name: 'tracing storage per turn',
        goal: 'reported',
        ratio: perTurn / 1024,
        unit: 'KB',
        met: true,
        detail:
          `observability tables grew ${(bytes / 1024).toFixed(0)} KB over ` +
          `${options.rounds * options.turns} turns (the untraced side's: ` +
          `${(untraced / 1024).toFixed(0)} KB, Mastra's empty partitions)`,
      },
    ]
  } finally {
    await resources.close()
  }
}
