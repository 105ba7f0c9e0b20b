/**
 * Server cost of one chat turn: popagent's full path against Mastra's own HTTP server running an
 * equivalent agent, both on the same zero-latency scripted model (a loopback OpenAI-compatible
 * gateway in its own process that streams the same 24-delta answer at once).
 *
 * - Ours: `POST /api/chat` on the real Node edge (request id, validation, host client) → the real
 *   compute host (`startComputeHost`, as `npm start` composes it, logging formatted but dropped;
 *   edge and host in one process, the edge calling the host in process, unless BENCH_SPLIT_EDGE=1):
 *   session check, settings snapshot, agents built from PostgreSQL (supervisor with its
 *   specialists as delegation tools, its tools and skills), the supervisor's Mastra run with
 *   Mastra memory (Observational Memory options from the seeded settings) in PostgreSQL, the
 *   stream converted to an AI SDK UI-message stream and proxied by the edge, and the exchange
 *   appended to the session row. The session is created (`POST /api/sessions`) before the timed
 *   batch. The default workspace's directory is absent (an empty POPAGENT_WORKSPACE_ROOT), so
 *   there is no repository brief and no workspace tools: the baselines have neither.
 * - Theirs: `POST /api/agents/assistant/stream` on `@mastra/hono`'s `MastraServer` (one
 *   process): one Agent with our supervisor's instructions and no tools, the same model through
 *   the same `@ai-sdk/openai-compatible` provider, and Mastra memory with the same options on
 *   `@mastra/pg`'s PostgresStore; Mastra's SSE of its own chunks. The first goal's baseline (≤ 0.8×).
 * - Theirs, same team: a second such server serving our supervisor as our agent factory builds
 *   it (specialists as delegation tools, tools, skills, same memory), built once at start: the
 *   identical model request (same tools, same bytes) without our per-turn work around it (edge
 *   hop, session row, settings and agent rows read and agents rebuilt every turn). It shows how
 *   much of the difference is the richer agent and how much is our path, and it is the fair
 *   anchor of issue 41's goal (≤ 1.1× its CPU per turn). Its tools are built as the host's are
 *   (memory tools, the sandbox self-test); any tool only one side offers is named in the result.
 *
 * Each turn is a new session (ours) or thread (theirs), so every side reads an empty history and
 * persists the exchange (checked at the end). Model calls per turn, their request size and tool
 * count are taken at the gateway and reported. "Server time" is the CPU time (user + system) of
 * the server processes over a batch, divided by its turns: popagent's (host + edge when split), the Mastra
 * server for theirs; PostgreSQL's and the gateway's CPU are counted for none. Wall time per turn
 * (request sent → stream fully read, median) is reported beside it. Batches run sequentially and
 * 8 at a time; rounds rotate which side goes first, and each ratio is the median of per-round
 * ratios. BENCH_CPU_PROF=<dir> writes V8 CPU profiles of every server over the measured turns.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { connectPostgresJs } from '../db/connect-postgres.ts'
import * as Agents from '../runtime/agents/index.ts'
import { SUPERVISOR_AGENT_ID } from '../runtime/agents/supervisor.ts'
import * as Settings from '../runtime/settings/index.ts'
import { createDatabaseOnServer } from '../test/support/database.ts'
import { startThrowawayPostgres } from '../test/support/throwaway-postgres.ts'
import { median } from './stats.ts'
import {
  MASTRA_AGENT,
  MODEL,
  REPLY,
  splitEdge,
  startServer,
  exited,
  type ServerProcess,
} from './chat-turn-servers.ts'
import type { BenchMode, BenchResult } from './result.ts'

const PROMPT = 'Summarise what a chat turn does in one paragraph.'
const LAST_WORD = REPLY.at(-1)!.trim()
// Work a server finishes after the stream closed (a deferred save) still belongs to the turn.
const SETTLE_MS = 150

export type Side = {
  name: string
  /** The processes whose CPU a turn costs; ours lists the edge first. */
  servers: ServerProcess[]
  /** Makes whatever a turn needs beforehand (our sessions); untimed. */
  prepare(turns: number): Promise<string[]>
  turn(id: string): Promise<void>
}
type Batch = {
  cpuMs: number
  /** Ours: the edge's part of cpuMs (servers[0]). */
  edgeMs: number
  wallMs: number
  calls: number
  requestKb: number
  tools: number
  /** The tools the last model request offered, by name. */
  toolNames: string[]
}

async function readAll(res: Response, what: string) {
  const text = await res.text()
  if (res.status !== 200 || !text.includes(LAST_WORD)) {
    throw new Error(`${what}: ${res.status} without the scripted answer: ${text.slice(0, 300)}`)
  }
}

const post = (url: string, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

/**
 * Ours: one process serving the edge and the host (`popagent start`), or with `edge` the split
 * deployment, the edge in a process of its own (its CPU first in `servers`).
 */
export function popagent(host: ServerProcess, split?: ServerProcess): Side {
  const edge = split ?? host
  return {
    name: 'popagent',
    servers: split ? [split, host] : [host],
    async prepare(turns) {
      const ids: string[] = []
      for (let i = 0; i < turns; i++) {
        const res = await post(`${edge.url}/api/sessions`, { workspaceId: 'wsp_default' })
        if (res.status !== 201 && res.status !== 200) throw new Error(await res.text())
        ids.push(((await res.json()) as { id: string }).id)
      }
      return ids
    },
    async turn(sessionId) {
      const res = await post(`${edge.url}/api/chat`, {
        sessionId,
        workspaceId: 'wsp_default',
        model: MODEL,
        message: {
          id: `u_${Math.random().toString(36).slice(2)}`,
          role: 'user',
          parts: [{ type: 'text', text: PROMPT }],
        },
      })
      await readAll(res, 'popagent turn')
    },
  }
}

function mastra(server: ServerProcess, agentId: string): Side {
  let next = 0
  return {
    name: `mastra ${agentId}`,
    servers: [server],
    prepare: async (turns) =>
      Array.from({ length: turns }, () => `bench-thread-${process.pid}-${next++}`),
    async turn(thread) {
      const res = await post(`${server.url}/agents/${agentId}/stream`, {
        messages: [{ role: 'user', content: PROMPT }],
        memory: { thread, resource: 'bench-user' },
        // Our memory options read the model route from the request context, as the host's do.
        requestContext: { modelRoute: MODEL },
      })
      await readAll(res, 'mastra turn')
    },
  }
}

const cpuOf = (side: Side) => Promise.all(side.servers.map((s) => s.cpuMs()))

/** `turns` turns, `concurrency` at a time; CPU, median wall time and model calls per turn. */
async function batch(
  side: Side,
  gateway: ServerProcess,
  turns: number,
  concurrency: number,
): Promise<Batch> {
  const ids = await side.prepare(turns)
  const calls0 = Number(await gateway.ask('calls'))
  const bytes0 = Number(await gateway.ask('bytes'))
  const cpu0 = await cpuOf(side)
  const walls: number[] = []
  let taken = 0
  const worker = async () => {
    while (taken < ids.length) {
      const id = ids[taken++]!
      const started = performance.now()
      await side.turn(id)
      walls.push(performance.now() - started)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  await sleep(SETTLE_MS)
  const cpus = (await cpuOf(side)).map((ms, i) => ms - cpu0[i]!)
  const calls = Number(await gateway.ask('calls')) - calls0
  const bytes = Number(await gateway.ask('bytes')) - bytes0
  return {
    cpuMs: cpus.reduce((a, b) => a + b, 0) / turns,
    edgeMs: side.servers.length > 1 ? cpus[0]! / turns : 0,
    wallMs: median(walls),
    calls: calls / turns,
    requestKb: bytes / calls / 1024,
    tools: Number(await gateway.ask('tools')),
    toolNames: JSON.parse(await gateway.ask('toolNames')) as string[],
  }
}

/**
 * What a server-side bench run needs and must give back: `databaseCount` fresh databases on one
 * PostgreSQL server (BENCH_DATABASE_URL's, TEST_DATABASE_URL's or a throwaway one), an empty
 * workspace root, and the child processes it starts (pushed onto `processes`). `close()` stops the
 * children, waits for them, and removes everything else.
 */
export async function benchResources(databaseCount: number, prefix: string) {
  const given = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL
  const throwaway = given ? undefined : await startThrowawayPostgres()
  const url = given ?? throwaway!.url
  const databases = await Promise.all(
    Array.from({ length: databaseCount }, () => createDatabaseOnServer(url)),
  )
  const workspaceRoot = await mkdtemp(join(tmpdir(), prefix))
  const processes: ServerProcess[] = []
  return {
    databases,
    workspaceRoot,
    processes,
    async close() {
      for (const p of processes) p.stop()
      await Promise.all(processes.map(exited))
      await rm(workspaceRoot, { recursive: true, force: true })
      for (const database of databases) await database.drop().catch(() => {})
      await throwaway?.stop()
    },
  }
}

/** Our supervisor's instructions and the seeded memory settings, read from the host's database. */
async function ourConfiguration(databaseUrl: string) {
  const db = connectPostgresJs(databaseUrl, { max: 1 })
  try {
    const rows = await Agents.listRows(db.db)
    const supervisor = rows.find((r) => r.id === SUPERVISOR_AGENT_ID)!
    return {
      instructions: supervisor.instructions,
      memorySettings: await Settings.memory.get(db.db),
    }
  } finally {
    await db.close()
  }
}

/**
 * What each side persisted, checked after the run so a side that silently skipped its save
 * cannot look cheap: sessions holding both messages (ours) and Mastra's stored messages (each
 * side's memory thread holds the user's message and the answer).
 */
async function persisted(ourUrl: string, theirUrls: string[]) {
  const ours = connectPostgresJs(ourUrl, { max: 1 })
  const theirs = theirUrls.map((url) => connectPostgresJs(url, { max: 1 }))
  try {
    const count = async (db: typeof ours, query: string) =>
      Number((await db.sql.unsafe(query))[0]!.n)
    return {
      sessions: await count(
        ours,
        `select count(*) as n from popagent_sessions where message_count = 2`,
      ),
      ourMemory: await count(ours, `select count(*) as n from mastra.mastra_messages`),
      theirMemory: await Promise.all(
        theirs.map((db) => count(db, `select count(*) as n from mastra.mastra_messages`)),
      ),
    }
  } finally {
    await Promise.all([ours, ...theirs].map((db) => db.close()))
  }
}

const f1 = (n: number) => n.toFixed(1)

type Database = Awaited<ReturnType<typeof createDatabaseOnServer>>

export async function benchChatTurn({ quick }: BenchMode): Promise<BenchResult[]> {
  const options = quick
    ? { rounds: 2, warm: 4, sequential: 4, concurrent: 8 }
    : { rounds: 5, warm: 30, sequential: 30, concurrent: 48 }
  const resources = await benchResources(4, 'popagent-bench-chat-')
  const { databases, workspaceRoot, processes } = resources
  const [app, observability, theirs, theirTeam] = databases as [
    Database,
    Database,
    Database,
    Database,
  ]
  const profile = process.env.BENCH_CPU_PROF
  try {
    const gateway = await startServer('gateway')
    processes.push(gateway)
    const split = splitEdge()
    const host = await startServer('host', {
      databaseUrl: app.url,
      observabilityUrl: observability.url,
      gatewayUrl: gateway.url,
      workspaceRoot,
      withEdge: !split,
    })
    processes.push(host)
    const edge = split
      ? await startServer('edge', { databaseUrl: app.url, hostUrl: host.url })
      : undefined
    if (edge) processes.push(edge)
    const configuration = await ourConfiguration(app.url)
    const plain = await startServer('mastra', {
      databaseUrl: theirs.url,
      gatewayUrl: gateway.url,
      ...configuration,
    })
    processes.push(plain)
    const team = await startServer('mastra', {
      databaseUrl: theirTeam.url,
      gatewayUrl: gateway.url,
      ...configuration,
      teamDatabaseUrl: app.url,
    })
    processes.push(team)
    const sides = [
      popagent(host, edge),
      mastra(plain, MASTRA_AGENT),
      mastra(team, SUPERVISOR_AGENT_ID),
    ] as const

    for (const side of sides) await batch(side, gateway, options.warm, 4)
    const profiled: Record<string, ServerProcess> = profile
      ? { host, ...(edge && { edge }), mastra: plain, 'mastra-team': team }
      : {}
    for (const [name, p] of Object.entries(profiled))
      await p.ask(`profile ${join(profile!, `${name}.cpuprofile`)}`)
    const results: BenchResult[] = []
    for (const [label, turns, concurrency] of [
      ['sequential', options.sequential, 1],
      ['8 concurrent', options.concurrent, 8],
    ] as const) {
      const rounds: Batch[][] = []
      for (let round = 0; round < options.rounds; round++) {
        const batches: Batch[] = []
        // Rotate which side goes first.
        for (let j = 0; j < sides.length; j++) {
          const i = (round + j) % sides.length
          batches[i] = await batch(sides[i]!, gateway, turns, concurrency)
        }
        rounds.push(batches)
      }
      const of = (i: number, key: Exclude<keyof Batch, 'toolNames'>) =>
        median(rounds.map((r) => r[i]![key]))
      // Against the plain agent the goal is the first one set (≤ 0.8×); against Mastra running
      // our own agent definition it is issue 41's (≤ 1.1×): the same agent, our path around it.
      for (const [i, against, goal] of [
        [1, 'Mastra server', 0.8],
        [2, 'Mastra server with our agent team', 1.1],
      ] as const) {
        const cpuRatio = median(rounds.map((r) => r[0]!.cpuMs / r[i]!.cpuMs))
        const wallRatio = median(rounds.map((r) => r[0]!.wallMs / r[i]!.wallMs))
        const theirTools = new Set(rounds[0]![i]!.toolNames)
        const onlyOurs = rounds[0]![0]!.toolNames.filter((name) => !theirTools.has(name))
        results.push({
          name: `chat turn server CPU vs ${against}, ${label}`,
          goal: `≤ ${goal}×`,
          ratio: cpuRatio,
          met: cpuRatio <= goal,
          detail:
            `CPU ${f1(of(0, 'cpuMs'))} ` +
            (edge ? `(edge ${f1(of(0, 'edgeMs'))}) ` : '(edge and host in one process) ') +
            `vs ${f1(of(i, 'cpuMs'))} ` +
            `ms/turn; ` +
            `wall ${f1(of(0, 'wallMs'))} vs ${f1(of(i, 'wallMs'))} ms/turn ` +
            `(${wallRatio.toFixed(2)}×); model calls/turn ${of(0, 'calls')} vs ` +
            `${of(i, 'calls')}, each sending ${f1(of(0, 'requestKb'))} vs ` +
            `${f1(of(i, 'requestKb'))} KB with ${of(0, 'tools')} vs ${of(i, 'tools')} tools` +
            (i === 2 && onlyOurs.length ? ` (only ours: ${onlyOurs.join(', ')})` : '') +
            `; ${turns} turns × ${options.rounds} rounds`,
        })
      }
    }
    for (const p of Object.values(profiled)) await p.ask('profiled')
    const turns = options.warm + options.rounds * (options.sequential + options.concurrent)
    const saved = await persisted(app.url, [theirs.url, theirTeam.url])
    if (
      saved.sessions !== turns ||
      saved.ourMemory < 2 * turns ||
      saved.theirMemory.some((n) => n < 2 * turns)
    ) {
      throw new Error(`a side did not persist every turn: ${JSON.stringify({ turns, ...saved })}`)
    }
    return results
  } finally {
    await resources.close()
  }
}
