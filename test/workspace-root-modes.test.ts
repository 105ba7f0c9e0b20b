/**
 * The workspace root and the data directory are private to popagent's user after start
 * (security issue, hole 2b): a file the agents made executable in a repository, or anything
 * else there, is out of other local users' reach even without the sandbox's seccomp filter.
 * Before, the root was made with `mkdir -p` (0755 under the usual umask) and a data directory
 * holding only key files stayed as it was found.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { chmod, chown, mkdir, mkdtemp, realpath, rm, stat, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { readApiKeyFile } from '../cli/api-key-file.ts'
import { secureWorkspaceRoot } from '../compute-host/workspaces/workspace-root.ts'
import { createDatabaseOnServer } from './support/database.ts'
import { startCli } from './support/process.ts'

const isRoot = process.getuid?.() === 0
const NOBODY = 65534
let base: string

before(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'popagent-root-modes-')))
})
after(() => rm(base, { recursive: true, force: true }))

const modeOf = async (path: string) => (await stat(path)).mode & 0o7777

test('popagent start leaves a loose workspace root and data directory 0700', async () => {
  const application = await createDatabaseOnServer()
  const observability = await createDatabaseOnServer()
  const dataDir = join(base, 'start', 'data')
  const workspaceRoot = join(base, 'start', 'workspace')
  // As `mkdir -p` under umask 022 leaves them; an empty `popagent` keeps the default clone away.
  await mkdir(join(workspaceRoot, 'popagent'), { recursive: true, mode: 0o755 })
  await mkdir(dataDir, { mode: 0o755 })
  await chmod(workspaceRoot, 0o755)
  await chmod(dataDir, 0o755)
  const cli = await startCli(['start'], {
    DATABASE_URL: application.url,
    OBSERVABILITY_DATABASE_URL: observability.url,
    POPAGENT_SECRET_KEY: randomBytes(32).toString('base64'),
    POPAGENT_DATA_DIR: dataDir,
    POPAGENT_WORKSPACE_ROOT: workspaceRoot,
    PORT: '0',
    NINEROUTER_URL: 'http://127.0.0.1:1/v1',
  })
  try {
    assert.ok(await readApiKeyFile(dataDir), 'no API key file was made')
    assert.equal((await modeOf(workspaceRoot)).toString(8), '700')
    assert.equal((await modeOf(dataDir)).toString(8), '700')
  } finally {
    assert.equal(await cli.stop(), 0, cli.output())
    await application.drop()
    await observability.drop()
  }
})

test('a missing workspace root is created 0700; one of ours is tightened through a link', async () => {
  const fresh = join(base, 'fresh', 'workspace')
  assert.deepEqual(await secureWorkspaceRoot(fresh), { root: fresh })
  assert.equal(await modeOf(fresh), 0o700)

  const loose = join(base, 'loose')
  await mkdir(loose)
  await chmod(loose, 0o2755)
  await symlink(loose, join(base, 'loose-link'))
  assert.deepEqual(await secureWorkspaceRoot(join(base, 'loose-link')), {
    root: loose,
    tightenedFrom: '2755',
  })
  assert.equal(await modeOf(loose), 0o700)
})

test('a workspace root others can write is refused with the chmod fix, and left as it was', async () => {
  for (const mode of [0o775, 0o757, 0o1777]) {
    const root = join(base, `writable-${mode.toString(8)}`)
    await mkdir(root)
    await chmod(root, mode)
    await assert.rejects(
      secureWorkspaceRoot(root),
      (error: Error) =>
        error.name === 'ConfigError' &&
        error.message.includes(`chmod 700 ${root}`) &&
        /other users can write into it/.test(error.message),
    )
    assert.equal(await modeOf(root), mode)
  }
})

test(
  "another user's workspace root is refused with the chown fix, and left as it was",
  { skip: !isRoot && 'making a directory another user owns needs root' },
  async () => {
    const root = join(base, 'theirs')
    await mkdir(root, { mode: 0o755 })
    await chmod(root, 0o755)
    await chown(root, NOBODY, NOBODY)
    await assert.rejects(
      secureWorkspaceRoot(root),
      (error: Error) =>
        error.name === 'ConfigError' && error.message.includes(`run chown 0 ${root}`),
    )
    assert.equal(await modeOf(root), 0o755)
    assert.equal((await stat(root)).uid, NOBODY)
  },
)
