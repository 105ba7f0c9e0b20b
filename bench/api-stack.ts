/**
 * The API stack on one small JSON route: our real middleware (request id, security headers, Host
 * and cross-site checks, API key, body limit, zod validation, the shared error handler) on
 * @hono/node-server, as the Node edge serves it, against bare node:http doing the same work by
 * hand and against Fastify 5 (see api-stack-servers.ts). Before measuring, the three must give
 * the same answers: the same status, error code (or body) and request-id header for a good
 * request, a foreign Host, a cross-site Origin, a missing key, a bad body, malformed JSON, a text
 * body and an unknown route.
 *
 * Load: this process, closed loop, CONNECTIONS requests in flight on as many keep-alive sockets
 * (node:http Agent, the cheapest client at hand), for a fixed time per server per round. Each
 * server is its own process; rounds alternate the order. The figures are medians of per-round
 * ratios. On a two-core machine the generator competes with the server for the CPU, which caps
 * all three alike: the ratios are the meaningful figures, not the absolute rates.
 */
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { Agent, request } from 'node:http'
import { availableParallelism } from 'node:os'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { median, percentile } from './stats.ts'
import { BENCH_API_KEY, ECHO_PATH } from './api-stack-servers.ts'
import type { BenchMode, BenchResult } from './result.ts'

const SERVERS = fileURLToPath(new URL('./api-stack-servers.ts', import.meta.url))
const CONNECTIONS = 32
const ROLES = ['ours', 'node-http', 'fastify'] as const
type Role = (typeof ROLES)[number]
type Server = { role: Role; url: URL; child: ChildProcess; agent: Agent }
type Round = { perSecond: number; p99Ms: number; failures: number }

const GOOD = Buffer.from(JSON.stringify({ name: 'popagent', count: 21 }))
const HEADERS = {
  'content-type': 'application/json',
  'content-length': String(GOOD.length),
  'x-popagent-key': BENCH_API_KEY,
}

function startServer(role: Role): Promise<Server> {
  const child = spawn(process.execPath, [SERVERS, role], { stdio: ['ignore', 'pipe', 'inherit'] })
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench server ${role} exited with ${code}`)))
    createInterface({ input: child.stdout! }).once('line', (url) =>
      resolve({
        role,
        url: new URL(url),
        child,
        agent: new Agent({ keepAlive: true, maxSockets: CONNECTIONS }),
      }),
    )
  })
}

/** One request on the server's keep-alive agent; resolves with the status and the body. */
function send(
  server: Server,
  options: { path?: string; headers?: Record<string, string>; body?: Buffer },
): Promise<{ status: number; requestId: unknown; body: string }> {
  const body = options.body ?? GOOD
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: server.url.hostname,
        port: server.url.port,
        method: 'POST',
        path: options.path ?? ECHO_PATH,
        agent: server.agent,
        headers: options.headers ?? HEADERS,
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            requestId: res.headers['x-request-id'],
            body: Buffer.concat(chunks).toString(),
          }),
        )
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

/** What must match across the three: status, request-id header, and the body or error code. */
async function answers(server: Server) {
  const json = (body: string) => ({ ...HEADERS, 'content-length': String(body.length) })
  const probes = {
    good: {},
    foreignHost: { headers: { ...HEADERS, host: 'attacker.test' } },
    crossSite: { headers: { ...HEADERS, origin: 'http://attacker.test' } },
    noKey: { headers: { 'content-type': 'application/json' } },
    badBody: {
      headers: json('{"name":"","count":1.5}'),
      body: Buffer.from('{"name":"","count":1.5}'),
    },
    malformed: { headers: json('{"name":'), body: Buffer.from('{"name":') },
    text: { headers: { ...HEADERS, 'content-type': 'text/plain' } },
    unknown: { path: '/api/bench/nowhere' },
  }
  const out: Record<string, unknown> = {}
  for (const [name, probe] of Object.entries(probes)) {
    const res = await send(server, probe)
    const body = JSON.parse(res.body)
    out[name] = {
      status: res.status,
      requestId: typeof res.requestId === 'string' && res.requestId.length > 0,
      answer: res.status === 200 ? body : body.error.code,
      ...(name === 'badBody' && { fields: Object.keys(body.error.data.fields).sort() }),
    }
  }
  return out
}

/** Closed loop for `ms`: CONNECTIONS requests in flight, each sent as the previous one ends. */
async function load(server: Server, ms: number): Promise<Round> {
  const latencies: number[] = []
  let failures = 0
  const deadline = performance.now() + ms
  const began = performance.now()
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < deadline) {
        const sent = performance.now()
        const res = await send(server, {}).catch(() => undefined)
        if (res?.status === 200) latencies.push(performance.now() - sent)
        else failures++
      }
    }),
  )
  const seconds = (performance.now() - began) / 1000
  return { perSecond: latencies.length / seconds, p99Ms: percentile(latencies, 99), failures }
}

export async function benchApiStack({ quick }: BenchMode): Promise<BenchResult[]> {
  const options = quick
    ? { rounds: 3, ms: 2_000, warmMs: 1_000 }
    : { rounds: 9, ms: 5_000, warmMs: 3_000 }
  const servers: Server[] = []
  try {
    for (const role of ROLES) servers.push(await startServer(role))
    const [ours, bare, fastify] = servers as [Server, Server, Server]
    const reference = await answers(bare)
    for (const server of [ours, fastify])
      assert.deepEqual(await answers(server), reference, `${server.role} answers as node:http does`)
    for (const server of servers) await load(server, options.warmMs)
    const rounds: Record<Role, Round[]> = { ours: [], 'node-http': [], fastify: [] }
    for (let round = 0; round < options.rounds; round++) {
      const order = round % 2 === 0 ? servers : [...servers].reverse()
      for (const server of order) rounds[server.role].push(await load(server, options.ms))
    }
    const perRound = (f: (o: Round, b: Round, t: Round) => number) =>
      median(rounds.ours.map((o, i) => f(o, rounds['node-http'][i]!, rounds.fastify[i]!)))
    const rate = (role: Role) => Math.round(median(rounds[role].map((r) => r.perSecond)))
    const p99 = (role: Role) => median(rounds[role].map((r) => r.p99Ms)).toFixed(1)
    const failures = ROLES.map((role) => rounds[role].reduce((n, r) => n + r.failures, 0))
    const setup =
      `${CONNECTIONS} keep-alive connections, closed loop, ${options.rounds} rounds of ` +
      `${options.ms / 1000} s; the load generator shares the machine's ` +
      `${availableParallelism()} cores with the server`
    const vsBare = perRound((o, b) => o.perSecond / b.perSecond)
    const p99VsBare = perRound((o, b) => o.p99Ms / b.p99Ms)
    const vsFastify = perRound((o, _b, t) => o.perSecond / t.perSecond)
    return [
      {
        name: 'API stack requests/s vs bare node:http',
        goal: '≥ 0.90×',
        ratio: vsBare,
        met: vsBare >= 0.9 && failures.every((n) => n === 0),
        detail: `${rate('ours')} vs ${rate('node-http')} requests/s; ${setup}; failed requests ${failures.join('/')} (ours/node:http/Fastify)`,
      },
      {
        name: 'API stack p99 latency vs bare node:http',
        goal: '≤ 1.25×',
        ratio: p99VsBare,
        met: p99VsBare <= 1.25,
        detail: `p99 ${p99('ours')} vs ${p99('node-http')} ms per request under that load`,
      },
      {
        // The issue sets no number against Fastify: a different framework's speed is context for
        // the two goals above, not a bar of its own, so this line is reported, never failed.
        name: 'API stack requests/s vs Fastify 5',
        goal: 'none (for information)',
        ratio: vsFastify,
        met: true,
        detail: `${rate('ours')} vs ${rate('fastify')} requests/s (Fastify p99 ${p99('fastify')} ms)`,
      },
    ]
  } finally {
    for (const server of servers) {
      server.agent.destroy()
      server.child.removeAllListeners('exit')
      server.child.kill()
    }
  }
}
