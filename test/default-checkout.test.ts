/**
 * The default workspace gets a repository on first start: a local clone of the checkout popagent
 * runs from. Without a checkout to clone, the answer names what to do. Real git, real database.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { promisify } from 'node:util'
import { ensureDefaultCheckout } from '../compute-host/workspaces/default-checkout.ts'
import { createTestDatabase, type TestDatabase } from './support/database.ts'
import { quietLog } from './support/stack.ts'

const git = promisify(execFile)
let database: TestDatabase
let dir: string

before(async () => {
  database = await createTestDatabase()
  dir = await realpath(await mkdtemp(join(tmpdir(), 'popagent-default-checkout-')))
})
after(async () => {
  await database.drop()
  await rm(dir, { recursive: true, force: true })
})

async function checkout(name: string): Promise<string> {
  const install = join(dir, name)
  await mkdir(install)
  await writeFile(join(install, 'README.md'), `# ${name}\n`)
  const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' }
  const opts = { cwd: install, env }
  await git('git', ['init', '--quiet'], opts)
  await git('git', ['add', 'README.md'], opts)
  await git(
    'git',
    ['-c', 'user.name=t', '-c', 'user.email=t@example.test', 'commit', '--quiet', '-m', 'first'],
    opts,
  )
  return install
}

test('first start clones the checkout into the default workspace; later starts leave it', async () => {
  const install = await checkout('install')
  const workspaceRoot = join(dir, 'root-a')
  await mkdir(workspaceRoot)
  const options = { db: database.db, workspaceRoot, log: quietLog(), installDir: install }
  const first = await ensureDefaultCheckout(options)
  assert.equal(first.state, 'cloned')
  const clone = join(workspaceRoot, 'popagent')
  assert.equal(await readFile(join(clone, 'README.md'), 'utf8'), '# install\n')
  assert.ok(existsSync(join(clone, '.git')), 'the clone is a Git repository')
  await writeFile(join(clone, 'README.md'), 'changed by the owner\n')
  assert.deepEqual(await ensureDefaultCheckout(options), { state: 'present' })
  assert.equal(await readFile(join(clone, 'README.md'), 'utf8'), 'changed by the owner\n')
})

test('without a Git checkout to clone, the default workspace says how to register one', async () => {
  const tarball = join(dir, 'tarball')
  await mkdir(tarball)
  const workspaceRoot = join(dir, 'root-b')
  await mkdir(workspaceRoot)
  const result = await ensureDefaultCheckout({
    db: database.db,
    workspaceRoot,
    log: quietLog(),
    installDir: tarball,
  })
  assert.equal(result.state, 'missing')
  assert.match(result.state === 'missing' ? result.reason : '', /register a repository/)
  assert.equal(existsSync(join(workspaceRoot, 'popagent')), false)
})
