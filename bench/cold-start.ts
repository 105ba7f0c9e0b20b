/**
 * Cold start: seconds from spawning `popagent start` to the first 200 from `/api/health`, on the
 * embedded database (PGlite) with a new, empty data directory and again restarting on that same
 * directory. `npm start` runs `node cli/popagent.ts start`; the bench spawns `process.execPath`
 * with that script directly, because npm's own start-up (about a tenth of a second) is not ours.
 *
 * The floor, measured in the same rounds and spawned the same way: a Node process that imports
 * only node:http and answers 200, timed the same way. The gateway is a closed loopback port: a
 * missing gateway is reported by the health endpoint, not fatal, and reaching none costs nothing.
 * Health is polled every POLL_MS from the spawn, so each figure includes up to that much waiting.
 * Rounds alternate whether the floor goes first; full mode reports the median of 5 rounds.
 *
 * The host answers health before its engines (Mastra, the agents, the task runner) have loaded,
 * so the bench also keeps polling until health says `computeHost.engines: ready`: from then on a
 * chat turn runs at once. Before, it waits for them; that figure is reported beside.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { freePort } from '../test/support/throwaway-postgres.ts'
import { median } from './stats.ts'
import type { BenchMode, BenchResult } from './result.ts'

const CLI = fileURLToPath(new URL('../cli/popagent.ts', import.meta.url))
const API_KEY = 'bench-api-key-0123456789abcdef'
const POLL_MS = 10
// A start that takes longer than this is a hang, not a figure.
const START_TIMEOUT_MS = 120_000
const STOP_TIMEOUT_MS = 20_000
// The floor: Node and node:http, nothing else, listening on the port it is given.
const FLOOR = `require('node:http').createServer((q, s) => s.end('ok')).listen(+process.argv[1], '127.0.0.1')`

const children = new Set<ChildProcess>()
// Whatever happens to the bench, no server it started outlives it.
const killAll = () => children.forEach((child) => child.kill('SIGKILL'))

type Started = { child: ChildProcess; seconds: number; agentsSeconds?: number }

/**
 * Spawns `args`, polls `url` until it answers 200, and returns the child and the time taken; with
 * `agents`, polls on until the health body says the host's engines are ready, and times that too.
 */
async function startAndTime(
  args: string[],
  env: Record<string, string>,
  url: string,
  agents = false,
): Promise<Started> {
  const began = performance.now()
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  children.add(child)
  let errors = ''
  child.stderr!.on('data', (d) => (errors = (errors + d).slice(-4_000)))
  child.once('exit', () => children.delete(child))
  let seconds: number | undefined
  while (performance.now() - began < START_TIMEOUT_MS) {
    const res = await fetch(url, { headers: { 'x-popagent-key': API_KEY } }).catch(() => undefined)
    const body = res?.status === 200 && agents ? await res.json().catch(() => undefined) : undefined
    await res?.body?.cancel().catch(() => {})
    const at = (performance.now() - began) / 1000
    if (res?.status === 200) seconds ??= at
    if (seconds !== undefined && !agents) return { child, seconds }
    if (seconds !== undefined && body?.computeHost?.engines === 'ready') {
      return { child, seconds, agentsSeconds: at }
    }
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited early:\n${errors}`)
    await sleep(POLL_MS)
  }
  throw new Error(`${args.join(' ')} was not ready in ${START_TIMEOUT_MS} ms:\n${errors}`)
}

/** SIGTERM (a graceful stop releases the data directory), SIGKILL if it hangs. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS)
  await exited
  clearTimeout(timer)
}

async function floor(): Promise<number> {
  const port = await freePort()
  const started = await startAndTime(['-e', FLOOR, String(port)], {}, `http://127.0.0.1:${port}/`)
  await stop(started.child)
  return started.seconds
}

/**
 * A new data directory and workspace root, then a restart on them: both times. The first start
 * includes cloning this checkout into the default workspace, as a new owner's first start does.
 */
async function popagent(): Promise<{
  fresh: number
  restart: number
  freshAgents: number
  restartAgents: number
}> {
  const dataDir = await mkdtemp(join(tmpdir(), 'popagent-bench-start-'))
  const workspaceRoot = await mkdtemp(join(tmpdir(), 'popagent-bench-workspaces-'))
  try {
    const port = await freePort()
    const env = {
      POPAGENT_DATA_DIR: dataDir,
      POPAGENT_WORKSPACE_ROOT: workspaceRoot,
      PORT: String(port),
      POPAGENT_API_KEY: API_KEY,
      NINEROUTER_URL: 'http://127.0.0.1:1/v1',
    }
    const health = `http://127.0.0.1:${port}/api/health`
    const first = await startAndTime([CLI, 'start'], env, health, true)
    await stop(first.child)
    const second = await startAndTime([CLI, 'start'], env, health, true)
    await stop(second.child)
    return {
      fresh: first.seconds,
      restart: second.seconds,
      freshAgents: first.agentsSeconds!,
      restartAgents: second.agentsSeconds!,
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true })
    await rm(workspaceRoot, { recursive: true, force: true })
  }
}

export async function benchColdStart({ quick }: BenchMode): Promise<BenchResult[]> {
  const rounds = quick ? 1 : 5
  process.once('exit', killAll)
  try {
    const floors: number[] = []
    const fresh: number[] = []
    const restarts: number[] = []
    const freshAgents: number[] = []
    const restartAgents: number[] = []
    for (let round = 0; round < rounds; round++) {
      const floorFirst = round % 2 === 0
      if (floorFirst) floors.push(await floor())
      const ours = await popagent()
      fresh.push(ours.fresh)
      restarts.push(ours.restart)
      freshAgents.push(ours.freshAgents)
      restartAgents.push(ours.restartAgents)
      if (!floorFirst) floors.push(await floor())
    }
    const floorS = median(floors)
    const ratioTo = (times: number[]) => median(times.map((t, i) => t / floors[i]!))
    const detail = (times: number[]) =>
      `${ratioTo(times).toFixed(0)}× the floor of starting Node (node:http only: ` +
      `${(floorS * 1000).toFixed(0)} ms); ${rounds === 1 ? '1 sample' : `median of ${rounds}`}, ` +
      `PGlite, spawned as node cli/popagent.ts start (not through npm), health polled every ` +
      `${POLL_MS} ms`
    const restart = median(restarts)
    return [
      {
        name: 'cold start to healthy, restart on the same data',
        goal: '≤ 3 s',
        ratio: restart,
        unit: 's',
        met: restart <= 3,
        detail: detail(restarts),
      },
      {
        name: 'cold start to agents ready, restart on the same data',
        goal: 'none (for information)',
        ratio: median(restartAgents),
        unit: 's',
        met: true,
        detail:
          `health saying computeHost.engines: ready (a chat turn runs at once from here); ` +
          `new data directory ${median(freshAgents).toFixed(2)} s; ${detail(restartAgents)}`,
      },
      {
        name: 'cold start to healthy, new data directory',
        goal: 'none (for information)',
        ratio: median(fresh),
        unit: 's',
        met: true,
        detail: detail(fresh),
      },
    ]
  } finally {
    killAll()
    process.off('exit', killAll)
  }
}
