/**
 * One sandboxed command cannot take the host down (security issue, hole 2c): the shell's own
 * class runs every command under per-process limits set inside the sandbox (processes, file
 * size, private memory, CPU time, no core dumps) and a bounded /tmp. Small limits here, so each
 * is reached in a moment; before the limits, every probe below ran to completion.
 */
import assert from 'node:assert/strict'
import { execFile, spawnSync } from 'node:child_process'
import { chown, mkdir, mkdtemp, realpath, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { promisify } from 'node:util'
import { BoundedSandbox } from '../compute-host/workspaces/bounded-sandbox.ts'
import { bubblewrapMissing } from './support/bubblewrap.ts'

const run = promisify(execFile)
const skip = bubblewrapMissing()
const MiB = 1024 * 1024
const LIMITS = {
  processes: 24,
  fileBytes: 1 * MiB,
  dataBytes: 256 * MiB,
  cpuSeconds: 1,
  tmpBytes: 2 * MiB,
}
let root: string
let sandbox: BoundedSandbox

before(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'popagent-limits-')))
  await mkdir(join(root, '.git'))
  sandbox = new BoundedSandbox({ root, env: { LANG: 'C.UTF-8' }, limitMs: 30_000, limits: LIMITS })
})
after(() => rm(root, { recursive: true, force: true }))

const inSandbox = async (script: string) => {
  const result = await sandbox.executeCommand!('sh', ['-c', script])
  return { exitCode: result.exitCode, stdout: result.stdout.trim() }
}

test('every limit is in force inside the sandbox', { skip }, async () => {
  const { stdout } = await inSandbox('cat /proc/self/limits')
  const soft = (name: string) => new RegExp(`^${name}\\s+(\\S+)`, 'm').exec(stdout)?.[1]
  assert.deepEqual(
    {
      processes: soft('Max processes'),
      fileBytes: soft('Max file size'),
      dataBytes: soft('Max data size'),
      cpuSeconds: soft('Max cpu time'),
      core: soft('Max core file size'),
    },
    {
      processes: '24',
      fileBytes: String(MiB),
      dataBytes: String(256 * MiB),
      cpuSeconds: '1',
      core: '0',
    },
  )
})

test('a write past the file-size limit is stopped at the limit', { skip }, async () => {
  const { stdout } = await inSandbox(`head -c ${2 * MiB} /dev/zero > big; echo "exit:$?"`)
  // SIGXFSZ (25) ends the writer: status 128 + 25.
  assert.equal(stdout, 'exit:153')
  assert.equal((await stat(join(root, 'big'))).size, MiB)
})

test('/tmp holds no more than its size', { skip }, async () => {
  const { stdout } = await inSandbox(
    `for i in 1 2 3; do head -c ${MiB - 4096} /dev/zero > /tmp/part$i || echo full; done; cat /tmp/part* | wc -c`,
  )
  const [full, kept] = stdout.split('\n')
  assert.equal(full, 'full')
  assert.ok(Number(kept) <= 2 * MiB, stdout)
})

test(
  'a process that spins is stopped by its CPU time; Node starts under the memory limit and cannot exceed it',
  { skip },
  async () => {
    const started = Date.now()
    const spin = await inSandbox('sh -c "while :; do :; done"; echo "exit:$?"')
    // SIGXCPU (24) at one CPU second, long before the 30 s time limit.
    assert.equal(spin.stdout, 'exit:152')
    assert.ok(Date.now() - started < 15_000, `${Date.now() - started} ms`)

    const node = await inSandbox(
      `'${process.execPath}' -e 'try { Buffer.alloc(${512 * MiB}, 1) } catch (e) { console.log("refused") }; console.log("ran")'`,
    )
    assert.equal(node.stdout, 'refused\nran')
  },
)

// Root is exempt from RLIMIT_NPROC in every user namespace (kernel/fork.c checks for the
// initial user), so as root the limit is proven from a process of `nobody`.
const NOBODY = 65534
const isRoot = process.getuid?.() === 0
const helper = join(import.meta.dirname, 'support', 'sandbox-as-nobody.ts')
const asNobody = (argv: string[]) => [
  'setpriv',
  `--reuid=${NOBODY}`,
  `--regid=${NOBODY}`,
  '--clear-groups',
  process.execPath,
  ...argv,
]
const [setpriv, ...readHelper] = asNobody(['-e', `fs.accessSync(${JSON.stringify(helper)})`])
const nobodyCannotRun =
  isRoot &&
  spawnSync(setpriv!, readHelper).status !== 0 &&
  `uid ${NOBODY} cannot run popagent's Node and this checkout (needs setpriv from util-linux and a world-readable checkout)`

test('a fork bomb stops at the process limit', { skip: skip || nobodyCannotRun }, async () => {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'popagent-nproc-')))
  try {
    const repo = join(base, 'repo')
    await mkdir(join(repo, '.git'), { recursive: true })
    if (isRoot) {
      await chown(base, NOBODY, NOBODY)
      await chown(repo, NOBODY, NOBODY)
    }
    // 40 background sleeps under a limit of 24 processes and threads.
    const bomb = 'for i in $(seq 1 40); do sleep 2 & done 2>&1 | head -1; wait; echo done'
    const argv = [helper, repo, bomb, JSON.stringify(LIMITS)]
    const [command, ...args] = isRoot ? asNobody(argv) : [process.execPath, ...argv]
    const { stdout } = await run(command!, args, { env: { PATH: process.env.PATH, HOME: '/tmp' } })
    const result = JSON.parse(stdout) as { exitCode: number; stdout: string }
    // dash says "Cannot fork", bash "fork: Resource temporarily unavailable".
    assert.match(result.stdout, /(Cannot fork|Resource temporarily unavailable)[^]*\ndone\n$/)
  } finally {
    await rm(base, { recursive: true, force: true })
  }
})
