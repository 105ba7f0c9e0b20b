/**
 * Footprint of `npm start` on the embedded database (PGlite): resident memory idle and after chat
 * turns, the data directory's size, and the time to healthy on a restart.
 *
 * Each round spawns `node cli/popagent.ts start` (not through npm, whose own process is not ours)
 * on a new data directory and a temporary POPAGENT_WORKSPACE_ROOT holding an empty `popagent`
 * directory, so no clone is made. The model gateway is the scripted zero-latency one of
 * chat-turn-servers.ts in its own process, so its memory is not counted. A round:
 *
 * 1. fresh start (one initdb) → healthy → engines ready → settle → RSS ("idle, new data
 *    directory"); stop;
 * 2. restart on the same directory, timed from spawn to the first 200 from `/api/health` (polled
 *    every POLL_MS) → the host's engines ready (health says so) → settle → RSS ("idle");
 * 3. TURNS chat turns through `POST /api/chat` (TURNS_PER_SESSION per session, so thread memory
 *    is loaded and grows) → settle → RSS ("after turns"), and the peak (VmHWM); stop;
 * 4. the data directory's size (allocated blocks, as `du` counts);
 * 5. a generated repository of 3,000 files (turn-latency.ts's: 2,400 sources, 600 tests) put in the default workspace, and
 *    a restart: once the host has readied that workspace's brief (its log says so) and its
 *    background parse has ended (the process uses under 10 % of a core for half a second) →
 *    settle → RSS ("idle with a repository"): what a user whose checkout is there idles at
 *    before asking anything. For information, beside the goal's figure above.
 *
 * RSS is VmRSS of the popagent process from /proc/<pid>/status, read SETTLE_MS after the
 * process went quiet (no GC is forced: this is what the machine sees).
 *
 * The baseline, in the same round and spawned the same way: a bare Node that opens one PGlite
 * with pgvector on a new directory (and again, restarted, on that directory), as embedded.ts
 * opens it, and does nothing else. Ratios are ours over that baseline.
 *
 * Standalone: `node bench/footprint.ts [--quick]` prints the figures and exits.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdir, mkdtemp, readdir, readFile, lstat, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { freePort } from '../test/support/throwaway-postgres.ts'
import { MODEL, REPLY, startServer } from './chat-turn-servers.ts'
import type { BenchMode, BenchResult } from './result.ts'
import { median } from './stats.ts'
import { generateRepository } from './turn-latency.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const CLI = join(ROOT, 'cli/popagent.ts')
const API_KEY = 'bench-api-key-0123456789abcdef'
const POLL_MS = 10
const START_TIMEOUT_MS = 120_000
const STOP_TIMEOUT_MS = 20_000
const TURNS_PER_SESSION = 10
const LAST_WORD = REPLY.at(-1)!.trim()
const MB = 1024 * 1024

// The baseline: one PGlite with pgvector, opened as compute-host/database/embedded.ts does.
const BASELINE = `
const { PGlite } = await import('@electric-sql/pglite')
const { vector } = await import('@electric-sql/pglite-pgvector')
const db = await PGlite.create(process.argv[1], { extensions: { vector } })
await db.exec('create extension if not exists vector')
await db.query('select 1')
console.log('@ready')
process.on('SIGTERM', async () => { await db.close(); process.exit(0) })
setInterval(() => {}, 1 << 30)
`

const children = new Set<ChildProcess>()
const killAll = () => children.forEach((child) => child.kill('SIGKILL'))

/** Resident and peak resident memory of a process, in bytes, from /proc. */
export async function residentOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1]) * 1024
  return { rss: kb('VmRSS'), peak: kb('VmHWM') }
}

/** Waits `ms`, then until two readings a second apart differ by under 1 MB (at most 10 s more). */
async function settledRss(pid: number, ms: number): Promise<{ rss: number; peak: number }> {
  await sleep(ms)
  let last = await residentOf(pid)
  for (let i = 0; i < 10; i++) {
    await sleep(1_000)
    const now = await residentOf(pid)
    if (Math.abs(now.rss - last.rss) < MB) return now
    last = now
  }
  return last
}

/** Waits until the process uses under 10 % of a core over half a second (at most 60 s). */
async function quiet(pid: number): Promise<void> {
  const ticks = async () => {
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ')
    return Number(fields[11]) + Number(fields[12]) // utime + stime, in clock ticks (1/100 s)
  }
  for (let i = 0; i < 120; i++) {
    const before = await ticks()
    await sleep(500)
    if ((await ticks()) - before < 5) return
  }
}

/** Allocated size of a directory tree, as `du` counts it (blocks, not apparent sizes). */
export async function directorySize(dir: string): Promise<number> {
  let total = 0
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    total += (await lstat(path)).blocks * 512
    if (entry.isDirectory()) total += await directorySize(path)
  }
  return total
}

function spawnNode(args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.add(child)
  child.once('exit', () => children.delete(child))
  return child
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

/** Resolves when `ready()` does; fails when the child exits first or the deadline passes. */
async function until(child: ChildProcess, ready: () => Promise<boolean>, what: string) {
  let output = ''
  const keep = (d: Buffer) => (output = (output + d).slice(-4_000))
  child.stdout!.on('data', keep)
  child.stderr!.on('data', keep)
  const began = performance.now()
  while (performance.now() - began < START_TIMEOUT_MS) {
    if (await ready()) return (performance.now() - began) / 1000
    if (child.exitCode !== null) throw new Error(`${what} exited early:\n${output}`)
    await sleep(POLL_MS)
  }
  throw new Error(`${what} was not ready in ${START_TIMEOUT_MS} ms:\n${output}`)
}

type Baseline = { fresh: number; restart: number }

/** A bare Node with one PGlite: RSS on a new directory, then restarted on it. */
async function baseline(settleMs: number): Promise<Baseline> {
  const dir = await mkdtemp(join(tmpdir(), 'popagent-bench-fp-base-'))
  try {
    const once = async () => {
      const child = spawnNode(['--input-type=module', '-e', BASELINE, dir], {})
      let ready = false
      child.stdout!.on('data', (d) => (ready ||= String(d).includes('@ready')))
      await until(child, async () => ready, 'the PGlite baseline')
      const { rss } = await settledRss(child.pid!, settleMs)
      await stop(child)
      return rss
    }
    const fresh = await once()
    const restart = await once()
    return { fresh, restart }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

type Ours = {
  idleFresh: number
  idle: number
  idleWithRepository: number
  afterTurns: number
  peak: number
  restartS: number
  dataDir: number
}

async function popagent(gatewayUrl: string, turns: number, settleMs: number): Promise<Ours> {
  const dataDir = await mkdtemp(join(tmpdir(), 'popagent-bench-fp-data-'))
  const workspaceRoot = await mkdtemp(join(tmpdir(), 'popagent-bench-fp-ws-'))
  await mkdir(join(workspaceRoot, 'popagent'))
  try {
    const port = await freePort()
    const url = `http://127.0.0.1:${port}`
    const env = {
      POPAGENT_DATA_DIR: dataDir,
      POPAGENT_WORKSPACE_ROOT: workspaceRoot,
      PORT: String(port),
      POPAGENT_API_KEY: API_KEY,
      NINEROUTER_URL: gatewayUrl,
    }
    const headers = { 'x-popagent-key': API_KEY, 'content-type': 'application/json' }
    const healthy = async () => {
      const res = await fetch(`${url}/api/health`, { headers }).catch(() => undefined)
      await res?.body?.cancel()
      return res?.status === 200
    }
    // Health answers before the engines (Mastra, agents) load; idle is measured once they have.
    const agentsReady = async () => {
      const res = await fetch(`${url}/api/health`, { headers }).catch(() => undefined)
      const body = (await res?.json().catch(() => undefined)) as
        { computeHost?: { engines?: string } } | undefined
      return body?.computeHost?.engines === 'ready'
    }
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${url}${path}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
      })
      return { status: res.status, text: await res.text() }
    }

    const first = spawnNode([CLI, 'start'], env)
    await until(first, healthy, 'popagent start (new data directory)')
    await until(first, agentsReady, 'popagent start (new data directory), agents')
    const idleFresh = (await settledRss(first.pid!, settleMs)).rss
    await stop(first)

    const second = spawnNode([CLI, 'start'], env)
    const restartS = await until(second, healthy, 'popagent start (restart)')
    await until(second, agentsReady, 'popagent start (restart), agents')
    const idle = (await settledRss(second.pid!, settleMs)).rss
    let sessionId = ''
    for (let turn = 0; turn < turns; turn++) {
      if (turn % TURNS_PER_SESSION === 0) {
        const created = await post('/api/sessions', { workspaceId: 'wsp_default' })
        if (created.status !== 201) throw new Error(`session: ${created.status} ${created.text}`)
        sessionId = (JSON.parse(created.text) as { id: string }).id
      }
      const reply = await post('/api/chat', {
        sessionId,
        workspaceId: 'wsp_default',
        model: MODEL,
        message: {
          id: `u_${turn}_${Math.random().toString(36).slice(2)}`,
          role: 'user',
          parts: [{ type: 'text', text: `Question ${turn}: what does this repository do?` }],
        },
      })
      if (reply.status !== 200 || !reply.text.includes(LAST_WORD)) {
        throw new Error(`turn ${turn}: ${reply.status} ${reply.text.slice(0, 300)}`)
      }
    }
    const loaded = await settledRss(second.pid!, settleMs)
    await stop(second)
    const dataDirSize = await directorySize(dataDir)

    await rm(join(workspaceRoot, 'popagent'), { recursive: true })
    await generateRepository(join(workspaceRoot, 'popagent'))
    const third = spawnNode([CLI, 'start'], env)
    let log = ''
    third.stderr!.on('data', (d) => (log = (log + d).slice(-8_000)))
    await until(third, agentsReady, 'popagent start (with a repository), agents')
    await until(third, async () => log.includes('repository brief readied'), 'the readied brief')
    await quiet(third.pid!)
    const idleWithRepository = (await settledRss(third.pid!, settleMs)).rss
    await stop(third)
    return {
      idleFresh,
      idle,
      idleWithRepository,
      afterTurns: loaded.rss,
      peak: loaded.peak,
      restartS,
      dataDir: dataDirSize,
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true })
    await rm(workspaceRoot, { recursive: true, force: true })
  }
}

export async function benchFootprint({ quick }: BenchMode): Promise<BenchResult[]> {
  const rounds = quick ? 1 : 3
  const turns = quick ? 10 : 100
  const settleMs = quick ? 1_000 : 3_000
  process.once('exit', killAll)
  const gateway = await startServer('gateway')
  try {
    const bases: Baseline[] = []
    const ours: Ours[] = []
    for (let round = 0; round < rounds; round++) {
      bases.push(await baseline(settleMs))
      ours.push(await popagent(gateway.url, turns, settleMs))
    }
    const mb = (bytes: number) => bytes / MB
    const of = (pick: (o: Ours) => number) => median(ours.map(pick))
    const ratio = (pick: (o: Ours) => number, base: (b: Baseline) => number) =>
      median(ours.map((o, i) => pick(o) / base(bases[i]!)))
    const baseRestart = mb(median(bases.map((b) => b.restart)))
    const baseFresh = mb(median(bases.map((b) => b.fresh)))
    const samples = rounds === 1 ? '1 sample' : `median of ${rounds}`
    const idle = mb(of((o) => o.idle))
    const afterTurns = mb(of((o) => o.afterTurns))
    const restart = of((o) => o.restartS)
    const rows: BenchResult[] = [
      {
        name: 'footprint: idle RSS of npm start (restart)',
        goal: '≤ 350 MB',
        ratio: idle,
        unit: 'MB',
        met: idle <= 350,
        detail:
          `${ratio(
            (o) => o.idle,
            (b) => b.restart,
          ).toFixed(2)}× a bare Node with one PGlite ` +
          `(${baseRestart.toFixed(0)} MB); on a new data directory ` +
          `${mb(of((o) => o.idleFresh)).toFixed(0)} MB (baseline ${baseFresh.toFixed(0)} MB); ${samples}`,
      },
      {
        name: `footprint: RSS after ${turns} chat turns`,
        goal: '≤ 450 MB',
        ratio: afterTurns,
        unit: 'MB',
        met: afterTurns <= 450,
        detail:
          `${ratio(
            (o) => o.afterTurns,
            (b) => b.restart,
          ).toFixed(2)}× the bare PGlite; peak ` +
          `${mb(of((o) => o.peak)).toFixed(0)} MB; ${TURNS_PER_SESSION} turns a session, ` +
          `zero-latency scripted gateway; ${samples}`,
      },
      {
        name: 'footprint: idle RSS with a 3,000-file repository',
        goal: 'none (for information)',
        ratio: mb(of((o) => o.idleWithRepository)),
        unit: 'MB',
        met: true,
        detail:
          'restarted with a generated repository in the default workspace, after the host readied ' +
          `its brief and parsed its sources; ${samples}`,
      },
      {
        name: 'footprint: restart to healthy',
        goal: '≤ 3 s',
        ratio: restart,
        unit: 's',
        met: restart <= 3,
        detail: `spawn → first 200 from /api/health, polled every ${POLL_MS} ms; ${samples}`,
      },
      {
        name: `footprint: data directory after ${turns} turns`,
        goal: 'none (for information)',
        ratio: mb(of((o) => o.dataDir)),
        unit: 'MB',
        met: true,
        detail: `allocated blocks, as du counts; ${samples}`,
      },
    ]
    return rows
  } finally {
    gateway.stop()
    killAll()
    process.off('exit', killAll)
  }
}

if (import.meta.main) {
  const results = await benchFootprint({ quick: process.argv.includes('--quick') })
  for (const r of results) {
    const figure = `${r.ratio.toFixed(r.unit === 's' ? 2 : 0)} ${r.unit ?? '×'}`
    console.log(
      `${r.name.padEnd(44)} ${figure.padStart(9)}  goal ${r.goal} (${r.met ? 'met' : 'NOT MET'})  ${r.detail}`,
    )
  }
  process.exit(0)
}
