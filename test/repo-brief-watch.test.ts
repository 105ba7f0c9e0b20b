/**
 * The brief's watched fingerprints (tree-watch.ts): an unchanged tree is not walked again, and
 * no change is missed, however soon after it the question comes: an edit, a new file in a
 * directory made after the last walk, a deletion, a rename, a commit's git files. Trees past the
 * directory cap and fingerprints past their trust period are walked every time.
 */
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { mkdir, mkdtemp, rename, rm, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { treeFingerprint } from '../compute-host/repo-brief/fingerprint.ts'
import { createWatchedFingerprints } from '../compute-host/repo-brief/tree-watch.ts'
import { createWatchBarrier } from '../compute-host/repo-brief/watch-barrier.ts'
import { git, makeRepository } from './support/brief-fixtures.ts'

const dir = await mkdtemp(join(tmpdir(), 'popagent-brief-watch-test-'))
after(() => rm(dir, { recursive: true, force: true }))

test('an unchanged tree is walked once; each kind of change is seen by the very next question', async (t) => {
  const repo = await makeRepository(join(dir, 'changes'), {
    'src/a.ts': 'export const a = 1\n',
    'src/deep/b.ts': 'export const b = 1\n',
  })
  const watched = createWatchedFingerprints()
  t.after(() => watched.close())
  const first = await watched.fingerprint(repo)
  assert.equal(first, await treeFingerprint(repo), 'the same fingerprint as a plain walk')
  const walks = watched.stats().walks
  assert.equal(await watched.fingerprint(repo), first)
  assert.equal(await watched.fingerprint(repo), first)
  assert.equal(watched.stats().walks, walks, 'an unchanged tree was walked again')
  assert.ok(watched.stats().watched[repo]! >= 4, JSON.stringify(watched.stats()))

  let previous = first
  const changed = async (what: string, change: () => Promise<unknown>) => {
    await change()
    const next = await watched.fingerprint(repo)
    assert.notEqual(next, previous, `${what} was not seen`)
    assert.equal(next, await treeFingerprint(repo), `${what}: not what a plain walk says`)
    previous = next!
  }
  await changed('an edit', () => writeFile(join(repo, 'src/deep/b.ts'), 'export const b = 2\n'))
  await changed('a new directory', () => mkdir(join(repo, 'src/new')))
  await changed('a file in the new directory', () =>
    writeFile(join(repo, 'src/new/c.ts'), 'export const c = 1\n'),
  )
  await changed('an edit in the new directory', () =>
    writeFile(join(repo, 'src/new/c.ts'), 'export const c = 22\n'),
  )
  await changed('a renamed directory', () => rename(join(repo, 'src/new'), join(repo, 'src/moved')))
  await changed('an edit in the renamed directory', () =>
    writeFile(join(repo, 'src/moved/c.ts'), 'export const c = 333\n'),
  )
  await changed('a deletion', () => unlink(join(repo, 'src/a.ts')))
  await changed('a commit', async () => {
    git(repo, 'add', '-A')
    git(repo, 'commit', '-qm', 'second')
  })
  await changed('a new branch checked out', async () => git(repo, 'checkout', '-qb', 'other'))
  const before = watched.stats().walks
  assert.equal(await watched.fingerprint(repo), previous)
  assert.equal(watched.stats().walks, before)
})

test('edits straight before each question, a hundred times: never the old fingerprint', async (t) => {
  const repo = await makeRepository(join(dir, 'rapid'), { 'src/a.ts': 'export const a = 0\n' })
  const watched = createWatchedFingerprints()
  t.after(() => watched.close())
  let previous = await watched.fingerprint(repo)
  for (let i = 1; i <= 100; i++) {
    // Synchronous, so the event loop has no turn to read the watch's report before the question;
    // sizes alternate so that every edit is a change even within one mtime tick.
    writeFileSync(join(repo, 'src/a.ts'), `export const a = ${i % 2 ? 'x' : 'yy'}${i}\n`)
    const next = await watched.fingerprint(repo)
    assert.notEqual(next, previous, `edit ${i} was not seen`)
    previous = next
  }
})

test('a tree past the directory cap, and a fingerprint past its trust period, are walked every time', async (t) => {
  const files: Record<string, string> = {}
  for (let i = 0; i < 6; i++) files[`d${i}/f.ts`] = `export const f${i} = 1\n`
  const repo = await makeRepository(join(dir, 'many'), files)
  const unwatched: string[] = []
  const capped = createWatchedFingerprints({
    maxDirectories: 4,
    onUnwatched: (_root, reason) => unwatched.push(reason),
  })
  t.after(() => capped.close())
  const fingerprint = await capped.fingerprint(repo)
  assert.equal(await capped.fingerprint(repo), fingerprint)
  assert.equal(capped.stats().walks, 2)
  assert.equal(capped.stats().watched[repo], 0)
  assert.deepEqual(unwatched, ['more than 4 directories'])

  const untrusting = createWatchedFingerprints({ trustMs: 0 })
  t.after(() => untrusting.close())
  await untrusting.fingerprint(repo)
  await untrusting.fingerprint(repo)
  assert.equal(untrusting.stats().walks, 2)
})

test('past the repository cap the least recently used tree loses its watches; close ends them all', async (t) => {
  const repos = await Promise.all(
    ['one', 'two', 'three'].map((name) =>
      makeRepository(join(dir, name), { 'a.ts': 'export const a = 1\n' }),
    ),
  )
  const watched = createWatchedFingerprints({ maxRepositories: 2 })
  t.after(() => watched.close())
  for (const repo of repos) await watched.fingerprint(repo)
  assert.deepEqual(Object.keys(watched.stats().watched), repos.slice(1))
  watched.close()
  assert.deepEqual(watched.stats().watched, {})
})

test("all trees share one watch cap: a new tree takes the least recently used one's watches; an idle tree gives its up", async (t) => {
  const files = { 'a/x.ts': 'export const x = 1\n', 'b/y.ts': 'export const y = 1\n' }
  const first = await makeRepository(join(dir, 'shared-one'), files)
  const second = await makeRepository(join(dir, 'shared-two'), files)
  const probe = createWatchedFingerprints()
  await probe.fingerprint(first)
  const perTree = probe.stats().watched[first]!
  probe.close()

  const shared = createWatchedFingerprints({ maxDirectories: perTree + 2 })
  t.after(() => shared.close())
  await shared.fingerprint(first)
  assert.deepEqual(shared.stats().watched, { [first]: perTree })
  await shared.fingerprint(second)
  assert.deepEqual(shared.stats().watched, { [second]: perTree })

  const idle = createWatchedFingerprints({ idleMs: 50 })
  t.after(() => idle.close())
  await idle.fingerprint(first)
  assert.equal(idle.stats().watched[first], perTree)
  await new Promise((resolve) => setTimeout(resolve, 150))
  assert.deepEqual(idle.stats().watched, {})
})

test('a tree in use is walked again in the background, so a question after its trust period still skips the walk', async (t) => {
  const repo = await makeRepository(join(dir, 'renewed'), { 'a.ts': 'export const a = 1\n' })
  const watched = createWatchedFingerprints({ trustMs: 2_000 })
  t.after(() => watched.close())
  const first = await watched.fingerprint(repo)
  assert.equal(watched.stats().walks, 1)
  // Past the first walk's trust: the background walks (every 1,000 ms) have renewed it.
  await new Promise((resolve) => setTimeout(resolve, 2_300))
  const renewed = watched.stats().walks
  assert.ok(renewed >= 2, `background walks: ${renewed - 1}`)
  assert.equal(await watched.fingerprint(repo), first)
  assert.equal(watched.stats().walks, renewed, 'the question walked although a renewal was fresh')
})

test("the barrier's private directory goes with close, and a killed process's is removed by the next one", async (t) => {
  const { spawnSync } = await import('node:child_process')
  const { existsSync, mkdirSync, readdirSync } = await import('node:fs')
  const gone = spawnSync(process.execPath, ['-e', '']).pid!
  const stale = join(tmpdir(), `popagent-brief-watch-${gone}-test`)
  const alive = join(tmpdir(), `popagent-brief-watch-${process.ppid}-test`)
  mkdirSync(stale, { recursive: true })
  mkdirSync(alive, { recursive: true })
  t.after(() => rm(alive, { recursive: true, force: true }))
  const ours = () =>
    readdirSync(tmpdir()).filter((n) => n.startsWith(`popagent-brief-watch-${process.pid}-`))
  const before = ours()
  const barrier = createWatchBarrier()
  assert.equal(await barrier.pass(), true)
  assert.equal(existsSync(stale), false, 'the directory of a process that is gone was left')
  assert.equal(existsSync(alive), true, "a running process's directory was removed")
  assert.equal(ours().length, before.length + 1)
  barrier.close()
  assert.deepEqual(ours(), before)
})
