/**
 * Fifos, sockets and devices in a repository (issue 14, hole 7). The agent can make a fifo with
 * its shell; opening one blocks until a writer comes, and four such opens took every libuv pool
 * thread, so every later file call of the host waited forever. The file tools must end each such
 * call at once with an error naming the kind, never open one while searching or listing, and
 * leave the process answering: a timer, a file read and an HTTP request on loopback complete
 * while four fifo reads are in flight. A time bound ends any operation that still hangs.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { closeSync, constants, openSync } from 'node:fs'
import { mkdir, mkdtemp, open, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { createServer, request, type Server } from 'node:http'
import { createServer as createNetServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { createWorkspaceTools } from '@mastra/core/workspace'
import { createAgentWorkspace } from '../compute-host/workspaces/agent-workspace.ts'
import { ContainedFilesystem } from '../compute-host/workspaces/contained-filesystem.ts'
import { withTimeBound } from '../compute-host/workspaces/file-op-time-bound.ts'

const FIFOS = ['pipe.ts', 'src/pipe.txt', 'src/deep/pipe.md', 'notes.json']
let dir: string
let repo: string
let socketServer: ReturnType<typeof createNetServer>
let http: Server
let httpPort: number

before(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'popagent-special-')))
  repo = join(dir, 'repo')
  await mkdir(join(repo, 'src', 'deep'), { recursive: true })
  await writeFile(join(repo, 'src', 'a.ts'), 'export const needle = 1\n')
  for (const fifo of FIFOS) execFileSync('mkfifo', [join(repo, fifo)])
  await symlink('pipe.ts', join(repo, 'pipe-link.ts'))
  socketServer = createNetServer()
  await new Promise<void>((r) => socketServer.listen(join(repo, 'sock.ts'), r))
  if (process.getuid?.() === 0) execFileSync('mknod', [join(repo, 'null.ts'), 'c', '1', '3'])
  http = createServer((_, res) => res.end('pong'))
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r))
  httpPort = (http.address() as { port: number }).port
})

after(async () => {
  // Releases any open still waiting on a fifo (it would otherwise hold a pool thread), then
  // cleans up. A write-side open with O_NONBLOCK never blocks.
  for (const fifo of FIFOS) {
    try {
      closeSync(openSync(join(repo, fifo), constants.O_WRONLY | constants.O_NONBLOCK))
    } catch {}
  }
  await new Promise((r) => socketServer.close(r))
  await new Promise((r) => http.close(r))
  await rm(dir, { recursive: true, force: true })
})

const ping = () =>
  new Promise<string>((resolve, reject) => {
    request({ host: '127.0.0.1', port: httpPort }, (res) => {
      let body = ''
      res.on('data', (d) => (body += d))
      res.on('end', () => resolve(body))
    })
      .on('error', reject)
      .end()
  })

/** Resolves with how long `promise` took to settle, or rejects when it takes over `ms`. */
async function within<T>(ms: number, what: string, promise: Promise<T>) {
  const started = performance.now()
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} still pending after ${ms} ms`)), ms)
  })
  try {
    const value = await Promise.race([
      promise.then(
        (v) => ({ ok: true, v }),
        (e) => ({ ok: false, e }),
      ),
      late,
    ])
    return { ...value, ms: performance.now() - started }
  } finally {
    clearTimeout(timer)
  }
}

test('reading a fifo, a socket, a device or a link to a fifo ends at once, naming the kind', async () => {
  const fs = new ContainedFilesystem({ root: repo })
  const cases: [string, RegExp][] = [
    ['pipe.ts', /"pipe\.ts" is a fifo \(named pipe\)/],
    ['src/deep/pipe.md', /is a fifo/],
    ['pipe-link.ts', /is a fifo/],
    ['sock.ts', /"sock\.ts" is a socket/],
  ]
  if (process.getuid?.() === 0) cases.push(['null.ts', /is a character device/])
  for (const [path, kind] of cases) {
    const result = await within(2_000, `read ${path}`, fs.readFile(path))
    assert.equal(result.ok, false, `${path} was read`)
    const error = (result as { e: Error & { code?: string } }).e
    assert.equal(error.code, 'NOT_A_REGULAR_FILE', String(error))
    assert.match(error.message, kind)
    assert.match(error.message, /regular files only/)
  }
})

test('writing a fifo (read or not), a socket or a device is refused without blocking', async () => {
  const fs = new ContainedFilesystem({ root: repo })
  const nobodyReads = await within(2_000, 'write pipe.ts', fs.writeFile('pipe.ts', 'x'))
  assert.equal(nobodyReads.ok, false)
  assert.match(String((nobodyReads as { e: Error }).e), /is a fifo/)
  // With a reader at the other end the open succeeds; the fstat check still refuses it.
  const reader = await open(join(repo, 'notes.json'), constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    for (const op of [
      () => fs.writeFile('notes.json', 'x'),
      () => fs.appendFile('notes.json', 'x'),
    ]) {
      const read = await within(2_000, 'write notes.json', op())
      assert.equal(read.ok, false)
      assert.match(String((read as { e: Error }).e), /"notes\.json" is a fifo/)
    }
    assert.equal(
      (await reader.read(Buffer.alloc(8), 0, 8, null)).bytesRead,
      0,
      'nothing was written',
    )
  } finally {
    await reader.close()
  }
  const socket = await within(2_000, 'write sock.ts', fs.writeFile('sock.ts', 'x'))
  assert.match(String((socket as { e: Error }).e), /is a socket/)
  if (process.getuid?.() === 0) {
    const device = await within(2_000, 'write null.ts', fs.writeFile('null.ts', 'x'))
    assert.match(String((device as { e: Error }).e), /is a character device/)
  }
})

test('four concurrent fifo reads through the read tool leave the host answering', async () => {
  const workspace = createAgentWorkspace({
    agentId: 'implementer',
    root: repo,
    access: 'read-write',
    tools: ['workspace-read'],
    sandboxAvailable: false,
    shellTimeoutMs: 1_000,
  })!
  const read = (await createWorkspaceTools(workspace))['workspace-read'] as {
    execute: (input: unknown, context: unknown) => Promise<unknown>
  }
  const reads = FIFOS.map((path) => within(5_000, `read ${path}`, read.execute({ path }, {})))
  // Unrelated work started while the four reads are in flight: a timer, a file read (libuv's
  // pool, which four blocked opens would have filled) and an HTTP request on loopback.
  const [timer, file, pong] = await Promise.all([
    within(1_000, 'a 20 ms timer', new Promise((r) => setTimeout(r, 20))),
    within(1_000, 'a file read', readFile(join(repo, 'src', 'a.ts'), 'utf8')),
    within(1_000, 'an HTTP request', ping()),
  ])
  assert.ok(timer.ok && file.ok && pong.ok)
  for (const [i, result] of (await Promise.all(reads)).entries()) {
    assert.equal(result.ok, false, `${FIFOS[i]} was read`)
    assert.match(String((result as { e: Error }).e), /is a fifo/)
  }
})

test('search and listing leave fifos, sockets and devices out instead of opening them', async () => {
  const workspace = createAgentWorkspace({
    agentId: 'implementer',
    root: repo,
    access: 'read-write',
    tools: ['workspace-list', 'workspace-search'],
    sandboxAvailable: false,
    shellTimeoutMs: 1_000,
  })!
  const tools = (await createWorkspaceTools(workspace)) as Record<
    string,
    { execute: (input: unknown, context: unknown) => Promise<unknown> }
  >
  const found = await within(
    5_000,
    'search',
    tools['workspace-search']!.execute({ pattern: 'needle', path: '.' }, {}),
  )
  assert.ok(found.ok, String((found as { e?: unknown }).e))
  const text = String((found as { v: unknown }).v)
  assert.match(text, /src\/a\.ts:1:\d+: export const needle/)
  assert.ok(!/skipped: read error/.test(text), text)
  const listed = await within(5_000, 'list', tools['workspace-list']!.execute({ path: '.' }, {}))
  assert.ok(listed.ok)
  const listing = JSON.stringify((listed as { v: unknown }).v)
  assert.match(listing, /a\.ts/)
  for (const name of ['pipe.ts', 'pipe.txt', 'pipe.md', 'notes.json', 'sock.ts', 'null.ts']) {
    assert.ok(!listing.includes(name), `${name} listed: ${listing}`)
  }
  const fs = new ContainedFilesystem({ root: repo })
  const names = (await fs.readdir('.', { recursive: true })).map((e) => e.name).sort()
  assert.deepEqual(names, ['src', 'src/a.ts', 'src/deep'])
})

test('the time bound ends an operation stuck in the kernel with a clear error', async () => {
  // A blocking open of a fifo, made on purpose: the kind of call the bound exists for.
  const stuck = open(join(repo, 'src', 'pipe.txt'), 'r')
  const bounded = await within(
    5_000,
    'bounded open',
    withTimeBound('readFile', 'src/pipe.txt', 200, () => stuck),
  )
  assert.equal(bounded.ok, false)
  const error = (bounded as { e: Error & { code?: string } }).e
  assert.equal(error.code, 'FILE_OPERATION_TIMED_OUT')
  assert.match(error.message, /readFile on "src\/pipe\.txt" did not finish within 200 ms/)
  assert.ok(bounded.ms < 2_000, `${bounded.ms} ms`)
  // Release the pool thread: a writer arrives, the open completes, and it is closed.
  closeSync(openSync(join(repo, 'src', 'pipe.txt'), constants.O_WRONLY | constants.O_NONBLOCK))
  await (await stuck).close()

  // Through the filesystem: a recursive listing of a large tree under a 1 ms bound.
  const big = join(dir, 'big')
  await mkdir(big)
  await Promise.all(
    Array.from({ length: 40 }, async (_, d) => {
      await mkdir(join(big, `d${d}`))
      for (let f = 0; f < 50; f++) await writeFile(join(big, `d${d}`, `f${f}.ts`), '')
    }),
  )
  const fs = new ContainedFilesystem({ root: big, operationLimitMs: 1 })
  await assert.rejects(
    fs.readdir('.', { recursive: true }),
    /readdir on "\." did not finish within 1 ms/,
  )
})
