/**
 * Stream proxying: a UI-message stream read through the edge (`POST /api/chat`, with request id,
 * auth, validation and the host client) against the same stream read straight from the host's
 * socket. The "host" here is a loopback server that writes a fixed stream of SSE events as fast
 * as the socket takes them, one write per event as the real host does, so the figures measure
 * the proxy and not a model. The host and the edge run as separate processes, as deployed, so
 * the proxy's work does not share a thread with the client's. Rounds alternate the order.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { median } from './stats.ts'
import type { BenchMode, BenchResult } from './result.ts'
import { BENCH_TOKEN as TOKEN } from './stream-proxy-servers.ts'

const SERVERS = fileURLToPath(new URL('./stream-proxy-servers.ts', import.meta.url))

/** Starts one benchmark server process and resolves with the URL it prints. */
function startServer(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [SERVERS, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench server ${args[0]} exited with ${code}`)))
    createInterface({ input: child.stdout! }).once('line', (url) => resolve({ url, child }))
  })
}

const body = JSON.stringify({
  sessionId: 'ses_01JD0000000000000000000000',
  workspaceId: 'wsp_default',
  message: { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }] },
})

/** Reads one stream to the end; returns ms to the first byte and the bytes read. */
async function readStream(url: string): Promise<{ ttfbMs: number; bytes: number }> {
  const started = performance.now()
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body,
  })
  const reader = res.body!.getReader()
  let ttfbMs = -1
  let bytes = 0
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    if (ttfbMs < 0) ttfbMs = performance.now() - started
    bytes += value.byteLength
  }
  return { ttfbMs, bytes }
}

async function eventsPerSecond(url: string, streams: number, events: number): Promise<number> {
  const started = performance.now()
  await Promise.all(Array.from({ length: streams }, () => readStream(url)))
  return (streams * events) / ((performance.now() - started) / 1000)
}

export async function benchStreamProxy({ quick }: BenchMode): Promise<BenchResult[]> {
  const options = quick
    ? { rounds: 3, events: 500, ttfbSamples: 10 }
    : { rounds: 11, events: 5_000, ttfbSamples: 101 }
  const host = await startServer(['host', String(options.events)])
  const edge = await startServer(['edge', host.url])
  const direct = `${host.url}/internal/chat`
  const proxied = `${edge.url}/api/chat`
  try {
    await eventsPerSecond(direct, 4, options.events) // warm both paths
    await eventsPerSecond(proxied, 4, options.events)
    const results: BenchResult[] = []
    for (const streams of [1, 20]) {
      const ratios: number[] = []
      const rates: number[] = []
      for (let round = 0; round < options.rounds; round++) {
        const proxyFirst = round % 2 === 0
        const a = proxyFirst ? await eventsPerSecond(proxied, streams, options.events) : 0
        const d = await eventsPerSecond(direct, streams, options.events)
        const p = proxyFirst ? a : await eventsPerSecond(proxied, streams, options.events)
        ratios.push(p / d)
        rates.push(p)
      }
      const goal = streams === 1 ? 0.85 : 0.97
      results.push({
        name: `chat stream through the edge, ${streams} stream${streams > 1 ? 's' : ''}`,
        goal: `≥ ${goal}×`,
        ratio: median(ratios),
        met: median(ratios) >= goal,
        detail: `${Math.round(median(rates))} events/s proxied (${options.events} events per stream, ${options.rounds} rounds)`,
      })
    }
    const added: number[] = []
    for (let i = 0; i < options.ttfbSamples; i++) {
      const p = (await readStream(proxied)).ttfbMs
      const d = (await readStream(direct)).ttfbMs
      added.push(p - d)
    }
    const extra = median(added)
    results.push({
      name: 'chat stream added time to first byte',
      goal: '≤ +1 ms',
      ratio: extra,
      unit: 'ms',
      met: extra <= 1,
      detail: `median of ${options.ttfbSamples} paired requests`,
    })
    return results
  } finally {
    for (const server of [edge, host]) {
      server.child.removeAllListeners('exit')
      server.child.kill()
    }
  }
}
