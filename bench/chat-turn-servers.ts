/**
 * The processes of the chat-turn benchmark, each its own child so the client's work and the
 * scripted model's never land on a measured server's thread:
 *   node bench/chat-turn-servers.ts gateway                  the scripted model, instant replies
 *   node bench/chat-turn-servers.ts host <json>              popagent's real compute host
 *   node bench/chat-turn-servers.ts edge <json>              popagent's real Node edge
 *   node bench/chat-turn-servers.ts mastra <json>            Mastra's Hono server, one agent
 *                                                            (a plain one, or our supervisor)
 * Each prints `@url <url>` once it listens. A line `cpu` on stdin answers `@cpu <µs>` (user +
 * system CPU of the process so far); the gateway also answers `calls` (chat completions served),
 * `bytes` (their request bodies' JSON size, summed), `tools` (how many tools the last one offered)
 * and `toolNames` (their names, as JSON). Other stdout lines (a library's logging) are ignored by
 * the reader.
 */
import { serve } from '@hono/node-server'
import { Agent } from '@mastra/core/agent'
import { Mastra } from '@mastra/core/mastra'
import { MastraServer } from '@mastra/hono'
import { Memory } from '@mastra/memory'
import { PostgresStore } from '@mastra/pg'
import { Hono } from 'hono'
import type { AddressInfo } from 'node:net'
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import { Session } from 'node:inspector/promises'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { parseHostEnv } from '../compute-host/env.ts'
import { createLogger } from '../compute-host/log.ts'
import { startComputeHost } from '../compute-host/main.ts'
import { createAdmissionQueue } from '../compute-host/models/admission-queue.ts'
import { createAgentFactory } from '../compute-host/agents/factory.ts'
import { createToolProvider } from '../compute-host/agents/tool-provider.ts'
import { createRecall } from '../compute-host/recall/recall.ts'
import { createMemorySearchTool } from '../compute-host/tools/memory-search.ts'
import { createRepoBriefTool } from '../compute-host/tools/repo-brief.ts'
import { createRetainFactTool } from '../compute-host/tools/retain-fact.ts'
import { checkSandbox } from '../compute-host/workspaces/sandbox-check.ts'
import { createWebSearchTool } from '../compute-host/tools/web-search.ts'
import { createGatewayModels, type GatewayModels } from '../compute-host/models/gateway-models.ts'
import { memoryOptions } from '../compute-host/memory/observational-options.ts'
import { connectPostgresJs } from '../db/connect-postgres.ts'
import type { MemorySettings } from '../runtime/contracts/settings.ts'
import { parseEdgeConfig } from '../handlers/config.ts'
import { startNodeEdge } from '../handlers/entry.node.ts'
import { startScriptedGateway } from '../test/support/scripted-gateway.ts'
import { traceStorage } from './turn-latency-storage.ts'

export const HOST_TOKEN = 'bench-chat-host-token-0123456789'
export const MODEL = 'bench/model'
/** The scripted answer: a short streamed reply, the same for both sides. */
export const REPLY = Array.from({ length: 24 }, (_, i) => `word${i} `)
export const MASTRA_AGENT = 'assistant'

export type HostArgs = {
  databaseUrl: string
  observabilityUrl: string
  gatewayUrl: string
  workspaceRoot: string
  /** POPAGENT_TRACING: `off` for the tracing-overhead bench's untraced host. */
  tracing?: 'on' | 'off'
  /**
   * Also serve the Node edge in this process, calling the host in process, as `popagent start`
   * composes them; `url` is then the edge's.
   */
  withEdge?: boolean
}
/**
 * The chat benches measure popagent as `popagent start` runs it, edge and host in one process;
 * BENCH_SPLIT_EDGE=1 measures the split deployment instead (the edge in its own process, calling
 * the host over loopback HTTP, as a separately deployed edge does).
 */
export const splitEdge = () => process.env.BENCH_SPLIT_EDGE === '1'

export type EdgeArgs = { databaseUrl: string; hostUrl: string }
export type MastraArgs = {
  databaseUrl: string
  gatewayUrl: string
  instructions: string
  memorySettings: MemorySettings
  /** Serve our supervisor, built once from this database, instead of a plain agent. */
  teamDatabaseUrl?: string
  /**
   * Our supervisor's repository (canonical path), as a run with this workspace builds it: its
   * workspace tools and their Mastra workspace. Without it the team has no repository tools.
   */
  teamWorkspaceRoot?: string
  /** Time Mastra's storage calls and answer them to `storage` (the turn-latency bench). */
  traceStorage?: boolean
}

/**
 * Our supervisor as the host's agent factory builds it (specialists as delegation tools, its
 * tools and skills, the same memory), built once at start and served by Mastra's server: the
 * same agent definition and model request, without the per-turn work around it.
 */
async function ourTeam(
  databaseUrl: string,
  models: GatewayModels,
  memory: Memory,
  workspaceRoot?: string,
) {
  // Kept open: the memory tools hold it (never called here, but a tool must be able to run).
  const db = connectPostgresJs(databaseUrl, { max: 1 })
  const webSearch = createWebSearchTool({ baseUrl: 'http://127.0.0.1:9' })
  const repoBrief = createRepoBriefTool()
  // The memory tools as the host's engines build them (engines.ts), so the supervisor offers the
  // model the same tools as a host's turn does.
  const recall = createRecall({
    db: db.db,
    models,
    log: createLogger({ secrets: [], write: () => {} }),
    redact: (text) => text,
  })
  const memoryTools = { db: db.db, recall }
  const memorySearch = createMemorySearchTool(memoryTools)
  const factory = createAgentFactory({
    db: db.db,
    models,
    // The host's start-up self-test, so the sandboxed tools (shell, lsp-inspect) are offered
    // exactly when a host on this machine offers them.
    sandbox: await checkSandbox(),
    tools: createToolProvider({
      'web-search': () => ({ ok: true, tool: webSearch }),
      'repo-brief': () => ({ ok: true, tool: repoBrief }),
      'memory-search': () => ({ ok: true, tool: memorySearch }),
      'retain-fact': (agent) => ({ ok: true, tool: createRetainFactTool(memoryTools, agent.id) }),
    }),
  })
  const team = await factory.build({ memory, ...(workspaceRoot && { workspaceRoot }) })
  return team.supervisor
}

/**
 * Answers the coordinator's commands on stdin: `cpu`, the role's extras, and `profile <file>`
 * (start the V8 CPU profiler) / `profiled` (stop it and write the profile to that file), so a
 * profile covers the measured turns only, not start-up. An extra receives the command's argument
 * (`mode team` → `mode('team')`).
 */
export function answerCommands(
  extra: Record<string, (arg?: string) => string | Promise<string>> = {},
) {
  const inspector = new Session()
  let profileFile = ''
  createInterface({ input: process.stdin }).on('line', async (line) => {
    const [command, arg] = line.split(' ')
    if (command === 'cpu') {
      const { user, system } = process.cpuUsage()
      console.log(`@cpu ${user + system}`)
    } else if (command === 'profile') {
      profileFile = arg!
      inspector.connect()
      await inspector.post('Profiler.enable')
      await inspector.post('Profiler.start')
      console.log('@profile started')
    } else if (command === 'profiled') {
      const { profile } = await inspector.post('Profiler.stop')
      await writeFile(profileFile, JSON.stringify(profile))
      inspector.disconnect()
      console.log(`@profiled ${profileFile}`)
    } else if (extra[command!]) console.log(`@${command} ${await extra[command!]!(arg)}`)
  })
}

async function gateway() {
  const gw = await startScriptedGateway({ models: [{ id: MODEL, contextWindow: 131_072 }] })
  let calls = 0
  let bytes = 0
  let tools: string[] = []
  gw.respondWith((request) => {
    calls++
    bytes += JSON.stringify(request.body).length
    tools = (request.body?.tools ?? []).map(
      (t: { function?: { name?: string } }) => t.function?.name ?? '?',
    )
    // Recorded requests would grow without bound over thousands of turns.
    gw.requests.length = 0
    return { text: REPLY }
  })
  answerCommands({
    calls: () => String(calls),
    bytes: () => String(bytes),
    tools: () => String(tools.length),
    toolNames: () => JSON.stringify(tools),
  })
  console.log(`@url ${gw.url}`)
}

/** popagent's real compute host, composed as `npm start` does (with `withEdge`, its edge too). */
export async function startHost(args: HostArgs) {
  const env = parseHostEnv({
    DATABASE_URL: args.databaseUrl,
    OBSERVABILITY_DATABASE_URL: args.observabilityUrl,
    NINEROUTER_URL: args.gatewayUrl,
    POPAGENT_WORKSPACE_ROOT: args.workspaceRoot,
    POPAGENT_DATA_DIR: args.workspaceRoot,
    // An installed popagent always has its vault's key (`npm start` keeps one in a key file), and
    // with it every turn catches up with the vault before it reads the user's message.
    POPAGENT_SECRET_KEY: randomBytes(32).toString('base64'),
    ...(args.tracing && { POPAGENT_TRACING: args.tracing }),
  })
  // Lines are built and redacted as in production, then dropped rather than written to a pipe.
  const log = createLogger({
    secrets: [HOST_TOKEN],
    write: () => {},
    level: env.POPAGENT_LOG_LEVEL,
  })
  // As `popagent start` composes it, readying the likely workspace's brief once it can run turns.
  const host = await startComputeHost(env, {
    port: 0,
    token: HOST_TOKEN,
    log,
    warmLikelyBrief: true,
  })
  if (!args.withEdge) return host
  // As cli/commands/start.ts: the edge shares the host's database handles and calls it in process.
  const edge = await startNodeEdge({
    config: {
      ...parseEdgeConfig({ POPAGENT_HOST_URL: host.url, POPAGENT_HOST_TOKEN: HOST_TOKEN }),
      hostFetch: host.fetch,
    },
    db: host.resources.databases.application.db,
    observabilityDb: host.resources.databases.observability.db,
    port: 0,
  })
  return { ...host, url: edge.url }
}

/** popagent's real Node edge in front of `hostUrl`, with its own database handle. */
export function startEdge(args: EdgeArgs) {
  // The edge keeps its own database handle, as a separately deployed edge would.
  const db = connectPostgresJs(args.databaseUrl, { max: 4 })
  return startNodeEdge({
    config: parseEdgeConfig({ POPAGENT_HOST_URL: args.hostUrl, POPAGENT_HOST_TOKEN: HOST_TOKEN }),
    db: db.db,
    observabilityDb: db.db,
    port: 0,
  })
}

/**
 * Mastra's own server: a `Mastra` instance with one agent mounted on Hono by `@mastra/hono`, the
 * agent on the same gateway model through the same OpenAI-compatible provider, with the same
 * instructions and Mastra memory (same options, built from the same settings) in PostgreSQL.
 */
async function mastra(args: MastraArgs) {
  const storageTrace = args.traceStorage ? traceStorage() : undefined
  const models = createGatewayModels({
    url: args.gatewayUrl,
    localModels: { queue: createAdmissionQueue(1), isLocal: () => false },
  })
  const pool = new pg.Pool({ connectionString: args.databaseUrl, max: 10 })
  const storage = new PostgresStore({ id: 'bench-mastra', pool, schemaName: 'mastra' })
  await storage.init()
  const memory = new Memory({ storage, options: memoryOptions(args.memorySettings, models) })
  const agent = args.teamDatabaseUrl
    ? await ourTeam(args.teamDatabaseUrl, models, memory, args.teamWorkspaceRoot)
    : new Agent({
        id: MASTRA_AGENT,
        name: 'Assistant',
        instructions: args.instructions,
        model: models.languageModel(MODEL),
        memory,
      })
  const instance = new Mastra({ agents: { [agent.id]: agent }, storage })
  const app = new Hono()
  await new MastraServer({ app, mastra: instance }).init()
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s))
  })
  answerCommands(storageTrace ? { storage: () => JSON.stringify(storageTrace.take()) } : {})
  console.log(`@url http://127.0.0.1:${(server.address() as AddressInfo).port}/api`)
}

// The parent's side of the protocol.

const SERVERS = fileURLToPath(new URL('./chat-turn-servers.ts', import.meta.url))

export type ServerProcess = {
  url: string
  child: ChildProcess
  /** Sends a command and resolves with the value of its `@<command>` answer. */
  ask(command: string): Promise<string>
  /** CPU time (user + system) the process has used so far, in ms. */
  cpuMs(): Promise<number>
  stop(): void
}

/** Starts a role of this file (or of `options.script`, which speaks the same protocol). */
export function startServer(
  role: string,
  args?: unknown,
  options: { script?: string; nodeOptions?: string[] } = {},
): Promise<ServerProcess> {
  const script = options.script ?? SERVERS
  const child = spawn(
    process.execPath,
    [...(options.nodeOptions ?? []), script, role, ...(args ? [JSON.stringify(args)] : [])],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  )
  type Waiter = { resolve: (value: string) => void; reject: (error: Error) => void }
  const waiting = new Map<string, Waiter[]>()
  const lines = createInterface({ input: child.stdout! })
  lines.on('line', (line) => {
    // Anything not ours is a library's stdout logging.
    const match = /^@(\w+) (.*)$/.exec(line)
    if (match) waiting.get(match[1]!)?.shift()?.resolve(match[2]!)
  })
  // A child that dies fails whatever was asked of it rather than leaving the bench waiting.
  child.once('exit', (code) => {
    for (const waiter of [...waiting.values()].flat()) {
      waiter.reject(new Error(`bench server ${role} exited with ${code}`))
    }
    waiting.clear()
  })
  const ask = (command: string) =>
    new Promise<string>((resolve, reject) => {
      // The answer is named by the command's first word (`profile <file>` → `@profile …`).
      const name = command.split(' ')[0]!
      waiting.set(name, [...(waiting.get(name) ?? []), { resolve, reject }])
      if (command !== 'url') child.stdin!.write(`${command}\n`)
    })
  return ask('url').then((url) => ({
    url,
    child,
    ask,
    cpuMs: async () => Number(await ask('cpu')) / 1000,
    stop: () => void child.kill('SIGTERM'),
  }))
}

/** Resolves once the process has exited. */
export const exited = (server: ServerProcess) =>
  server.child.exitCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => server.child.once('exit', () => resolve()))

if (import.meta.main) {
  // Exit normally on SIGTERM, so the process closes its handles as on any stop.
  process.on('SIGTERM', () => process.exit(0))
  const [role, json] = process.argv.slice(2)
  const args = json ? JSON.parse(json) : undefined
  if (role === 'gateway') await gateway()
  else if (role === 'mastra') await mastra(args)
  else if (role === 'host' || role === 'edge') {
    const started = await (role === 'host' ? startHost(args) : startEdge(args))
    answerCommands()
    console.log(`@url ${started.url}`)
  } else throw new Error('usage: chat-turn-servers.ts gateway | host | edge | mastra <json>')
}
