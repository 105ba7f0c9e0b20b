/**
 * Heap retained by the servers after garbage collection, per operation, measured in the process
 * that holds the server (bench/heap-retained-child.ts, run with `--expose-gc`), never the client:
 *
 * - Per completed chat session: the real compute host and Node edge in one process (PostgreSQL
 *   behind both, the scripted gateway in its own process). Each operation creates a session
 *   (`POST /api/sessions`) and runs one turn through `POST /api/chat` to the end of its stream.
 * - Per 1,000 proxied streams: the real edge alone, in front of stream-proxy-servers.ts's
 *   loopback host (a 20-event UI-message stream per request). The same-run baseline is the same
 *   number of plain requests to the same edge (`GET /api/none`, a JSON 404 through the request-id
 *   middleware and the error handler), so growth any HTTP request causes is visible beside it;
 *   the reported figure is the proxied streams' own, not the difference.
 *
 * Method: warm up, collect garbage until the heap stops moving, run N operations, collect again;
 * (after − before) / N is one round's figure. Rounds follow each other (each round's "after" is
 * the next one's "before"), stream rounds alternate with baseline rounds, and the median round
 * is reported. The figure counts heap objects, not the code spaces (compiled code, bytecode,
 * deoptimisation data): heap snapshots taken thousands of streams apart showed the optimiser's
 * output as nearly all of heapUsed's growth, a bounded warm-up cost; heapUsed with code is given
 * in the detail. Heap readings move by tens of KB on their own, so N is large in full mode.
 *
 * Known retainer (heap snapshot comparison, @mastra/core 1.71.0): every agent run's id stays in
 * the process-wide AgentThreadStreamRuntime's `streamSeqByRunId` Map, which nothing prunes,
 * about 0.4 KB a run; it is most of the per-session figure and Mastra's own server has it too.
 */
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { median } from './stats.ts'
import { benchResources, popagent } from './chat-turn.ts'
import { exited, startServer, type ServerProcess } from './chat-turn-servers.ts'
import type { BenchMode, BenchResult } from './result.ts'
import { BENCH_TOKEN } from './stream-proxy-servers.ts'

const CHILD = fileURLToPath(new URL('./heap-retained-child.ts', import.meta.url))
const STREAM_HOST = fileURLToPath(new URL('./stream-proxy-servers.ts', import.meta.url))
const EVENTS = 20
const CONCURRENCY = 8

const measured = (role: string, arg: unknown) =>
  startServer(role, arg, { script: CHILD, nodeOptions: ['--expose-gc'] })
type Heap = { objects: number; total: number }
const heapOf = async (server: ServerProcess): Promise<Heap> => {
  const [objects, total] = (await server.ask('heap')).split(' ').map(Number)
  return { objects: objects!, total: total! }
}

/** Runs `count` operations, `CONCURRENCY` at a time. */
async function times(count: number, operation: () => Promise<void>) {
  let started = 0
  const worker = async () => {
    while (started < count) {
      started++
      await operation()
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
}

/** Bytes retained per operation in each of `rounds` consecutive rounds of `n` operations. */
async function retained(
  server: ServerProcess,
  rounds: number,
  n: number,
  operations: (() => Promise<void>)[],
): Promise<{ objects: number[]; total: number[] }[]> {
  const perRound = operations.map(() => ({ objects: [] as number[], total: [] as number[] }))
  let before = await heapOf(server)
  for (let round = 0; round < rounds; round++) {
    for (let j = 0; j < operations.length; j++) {
      // Alternate which operation goes first.
      const which = (round + j) % operations.length
      await times(n, operations[which]!)
      const after = await heapOf(server)
      perRound[which]!.objects.push((after.objects - before.objects) / n)
      perRound[which]!.total.push((after.total - before.total) / n)
      before = after
    }
  }
  return perRound
}

async function sessions(options: { rounds: number; n: number; warm: number }) {
  const resources = await benchResources(2, 'popagent-bench-heap-')
  const { databases, workspaceRoot, processes } = resources
  try {
    const gateway = await startServer('gateway')
    processes.push(gateway)
    const stack = await measured('stack', {
      databaseUrl: databases[0]!.url,
      observabilityUrl: databases[1]!.url,
      gatewayUrl: gateway.url,
      workspaceRoot,
    })
    processes.push(stack)
    const side = popagent(stack)
    const session = async () => {
      const [id] = await side.prepare(1)
      await side.turn(id!)
    }
    await times(options.warm, session)
    const [perSession] = await retained(stack, options.rounds, options.n, [session])
    return perSession!
  } finally {
    await resources.close()
  }
}

/** stream-proxy-servers.ts's loopback host, which prints its bare URL. */
async function streamHost() {
  const child = spawn(process.execPath, [STREAM_HOST, 'host', String(EVENTS)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`stream host exited with ${code}`)))
    createInterface({ input: child.stdout! }).once('line', resolve)
  })
  return { url, stop: () => void child.kill('SIGTERM') }
}

const streamBody = JSON.stringify({
  sessionId: 'ses_01JD0000000000000000000000',
  workspaceId: 'wsp_default',
  message: { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }] },
})

async function streams(options: { rounds: number; n: number; warm: number }) {
  const host = await streamHost()
  let edge: ServerProcess | undefined
  try {
    edge = await measured('edge', host.url)
    const url = edge.url
    const stream = async () => {
      const res = await fetch(`${url}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_TOKEN}` },
        body: streamBody,
      })
      const text = await res.text()
      if (res.status !== 200 || !text.endsWith('[DONE]\n\n')) throw new Error(`stream: ${text}`)
    }
    const plain = async () => {
      const res = await fetch(`${url}/api/none`)
      await res.arrayBuffer()
      if (res.status !== 404) throw new Error(`plain request: ${res.status}`)
    }
    await times(options.warm, stream)
    await times(options.warm, plain)
    const [proxied, baseline] = await retained(edge, options.rounds, options.n, [stream, plain])
    return { proxied: proxied!, baseline: baseline! }
  } finally {
    edge?.stop()
    host.stop()
    if (edge) await exited(edge)
  }
}

const kb = (bytes: number) => bytes / 1024
const list = (values: number[], scale: number) =>
  values.map((v) => ((v * scale) / 1024).toFixed(scale === 1 ? 2 : 1)).join(', ')

export async function benchHeapRetained({ quick }: BenchMode): Promise<BenchResult[]> {
  const options = quick
    ? { sessions: { rounds: 3, n: 30, warm: 10 }, streams: { rounds: 3, n: 300, warm: 300 } }
    : {
        sessions: { rounds: 3, n: 500, warm: 100 },
        streams: { rounds: 5, n: 2_000, warm: 1_000 },
      }
  const perSession = await sessions(options.sessions)
  const { proxied, baseline } = await streams(options.streams)
  // Quick mode's few operations are dominated by warm-up (caches and feedback still filling).
  const note = quick ? ' (quick mode: too few operations to judge)' : ''
  const sessionKb = kb(median(perSession.objects))
  const streamsKb = kb(median(proxied.objects)) * 1000
  return [
    {
      name: 'heap retained per completed chat session',
      goal: '≤ 1 KB',
      ratio: sessionKb,
      unit: 'KB',
      met: sessionKb <= 1,
      detail:
        `host + edge process, ${options.sessions.n} sessions (one turn each) per round; ` +
        `objects ${list(perSession.objects, 1)} KB/session by round; with compiled code ` +
        `${list(perSession.total, 1)}${note}`,
    },
    {
      name: 'heap retained per 1,000 proxied streams',
      goal: '≤ 50 KB',
      ratio: streamsKb,
      unit: 'KB',
      met: streamsKb <= 50,
      detail:
        `edge process, ${options.streams.n} streams (${EVENTS} events) per round; objects ` +
        `${list(proxied.objects, 1000)} KB/1,000 by round, with compiled code ` +
        `${list(proxied.total, 1000)}; baseline 1,000 plain requests (404): objects ` +
        `${list(baseline.objects, 1000)}, with code ${list(baseline.total, 1000)}${note}`,
    },
  ]
}
