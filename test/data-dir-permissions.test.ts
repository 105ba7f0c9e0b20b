/**
 * The embedded database's data directory is private to its user (issue 14, hole 5). PGlite
 * unpacks its cluster 0666 and rewrites pg_internal.init 0644 on each start; the host repairs
 * that on every open (directories 0700, files 0600) without following a link, and refuses a
 * directory someone else owns or can write, naming the fix. Ownership cases need root to set up
 * and are skipped otherwise.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import {
  chmod,
  lchown,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  realpath,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { loadOrCreateApiKey, readApiKeyFile } from '../cli/api-key-file.ts'
import { secureDataDir } from '../compute-host/database/data-dir-permissions.ts'
import { openDatabases } from '../compute-host/database/open.ts'
import { parseHostEnv } from '../compute-host/env.ts'
import { createLogger } from '../compute-host/log.ts'

const isRoot = process.getuid?.() === 0
const NOBODY = 65534
let base: string

before(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'popagent-datadir-')))
})
after(() => rm(base, { recursive: true, force: true }))

const modeOf = async (path: string) => (await lstat(path)).mode & 0o777

/** Every directory and file below `dir` (itself included) that group or other can access. */
async function openToOthers(dir: string): Promise<string[]> {
  const found: string[] = []
  if ((await modeOf(dir)) & 0o077) found.push(dir)
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isSymbolicLink()) continue
    const path = join(entry.parentPath, entry.name)
    if ((await modeOf(path)) & 0o077) found.push(path)
  }
  return found
}

test('the embedded databases open in a new data directory that stays private, start after start', async () => {
  const dataDir = join(base, 'fresh', 'data')
  const log = createLogger({ secrets: [], write: () => {} })
  for (let start = 0; start < 2; start++) {
    const databases = await openDatabases(parseHostEnv({ POPAGENT_DATA_DIR: dataDir }), log)
    try {
      await databases.application.db.execute('create table if not exists t (x text)')
      await databases.application.db.execute("insert into t values (repeat('x', 5000))")
      assert.deepEqual(await openToOthers(dataDir), [], `after open ${start + 1}`)
    } finally {
      await databases.close()
    }
    assert.deepEqual(await openToOthers(dataDir), [], `after close ${start + 1}`)
  }
  assert.equal(await modeOf(dataDir), 0o700)
})

test('loose modes left inside are repaired, links inside are neither followed nor changed', async () => {
  const dataDir = join(base, 'legacy')
  const outside = join(base, 'outside.txt')
  await mkdir(join(dataDir, 'app', 'base'), { recursive: true })
  await writeFile(join(dataDir, 'app', 'PG_VERSION'), '17\n')
  await writeFile(join(dataDir, 'app', 'base', '1247'), 'catalog')
  await writeFile(outside, 'not ours to change')
  await chmod(outside, 0o644)
  await symlink(outside, join(dataDir, 'app', 'link'))
  execFileSync('mkfifo', [join(dataDir, 'app', 'fifo')])
  await chmod(join(dataDir, 'app', 'PG_VERSION'), 0o666)
  await chmod(join(dataDir, 'app', 'base', '1247'), 0o666)
  await chmod(join(dataDir, 'app', 'base'), 0o777)
  await chmod(join(dataDir, 'app'), 0o755)
  await chmod(dataDir, 0o755)
  await secureDataDir(dataDir)
  assert.equal(await modeOf(dataDir), 0o700)
  assert.equal(await modeOf(join(dataDir, 'app')), 0o700)
  assert.equal(await modeOf(join(dataDir, 'app', 'base')), 0o700)
  assert.equal(await modeOf(join(dataDir, 'app', 'PG_VERSION')), 0o600)
  assert.equal(await modeOf(join(dataDir, 'app', 'base', '1247')), 0o600)
  assert.equal(await modeOf(outside), 0o644, 'the link was followed')
})

test('a data directory others can write is refused with the chmod fix, and left as it was', async () => {
  for (const mode of [0o770, 0o757, 0o777]) {
    const dataDir = join(base, `writable-${mode.toString(8)}`)
    await mkdir(join(dataDir, 'app'), { recursive: true })
    await writeFile(join(dataDir, 'app', 'PG_VERSION'), '17\n')
    await chmod(join(dataDir, 'app', 'PG_VERSION'), 0o666)
    await chmod(dataDir, mode)
    await assert.rejects(
      secureDataDir(dataDir),
      (error: Error) =>
        error.name === 'ConfigError' &&
        error.message.includes(`chmod 700 ${dataDir}`) &&
        /other users can write into it/.test(error.message),
    )
    assert.equal(await modeOf(dataDir), mode)
    assert.equal(await modeOf(join(dataDir, 'app', 'PG_VERSION')), 0o666)
    // Start refuses it the same way, before taking the lock or opening anything.
    await assert.rejects(
      openDatabases(parseHostEnv({ POPAGENT_DATA_DIR: dataDir }), createLogger({ secrets: [] })),
      /chmod 700/,
    )
    assert.deepEqual((await readdir(dataDir)).sort(), ['app'])
  }
})

test('a data directory that is not a directory is refused', async () => {
  const file = join(base, 'a-file')
  await writeFile(file, '')
  await assert.rejects(secureDataDir(file), /is not a directory/)
})

test(
  'a data directory owned by another user is refused with the chown fix',
  {
    skip: !isRoot && 'needs root to give a directory to another user',
  },
  async () => {
    const dataDir = join(base, 'theirs')
    await mkdir(dataDir, { mode: 0o700 })
    await lchown(dataDir, NOBODY, NOBODY)
    await assert.rejects(secureDataDir(dataDir), /belongs to uid 65534.*chown -R 0/)
    // Inside a directory of ours, an entry of theirs is refused too.
    const mixed = join(base, 'mixed')
    await mkdir(join(mixed, 'app'), { recursive: true, mode: 0o700 })
    await writeFile(join(mixed, 'app', 'planted'), '')
    await lchown(join(mixed, 'app', 'planted'), NOBODY, NOBODY)
    await assert.rejects(secureDataDir(mixed), /planted belongs to uid 65534/)
  },
)

test(
  'a data directory that is a link is followed only when the link is ours',
  {
    skip: !isRoot && 'needs root to give a link to another user',
  },
  async () => {
    const target = join(base, 'target')
    await mkdir(target, { mode: 0o755 })
    const ours = join(base, 'our-link')
    await symlink(target, ours)
    await secureDataDir(ours)
    assert.equal(await modeOf(target), 0o700)
    const theirs = join(base, 'their-link')
    await symlink(target, theirs)
    await lchown(theirs, NOBODY, NOBODY)
    await assert.rejects(secureDataDir(theirs), /symbolic link owned by uid 65534/)
  },
)

test('the API key file in the data directory keeps working through the repair', async () => {
  const dataDir = join(base, 'with-key')
  const created = await loadOrCreateApiKey(dataDir)
  await secureDataDir(dataDir)
  assert.equal((await stat(join(dataDir, 'api-key'))).mode & 0o777, 0o600)
  assert.equal(await readApiKeyFile(dataDir), created.key)
})
