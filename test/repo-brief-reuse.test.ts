/**
 * A new query on an unchanged repository reuses what the last brief learnt (the inventory and
 * each file's symbols), and nothing it reuses outlives a change: an edit that keeps the file's
 * size and puts its old mtime back still shows, for the old query and a new one. After a
 * repository's first brief the rest of its sources are parsed in the background, so a later
 * question parses nothing, and what that parse kept never outlives an edit either.
 */
import assert from 'node:assert/strict'
import { mkdtemp, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import {
  buildRepoBrief,
  cachedSourceCount,
  repoBriefWarmIdle,
} from '../compute-host/repo-brief/brief.ts'
import { makeRepository, mostStatusReads, slowGitStatus } from './support/brief-fixtures.ts'

const dir = await mkdtemp(join(tmpdir(), 'popagent-brief-reuse-'))
after(() => rm(dir, { recursive: true, force: true }))

/** Whether the repository's status was read while `brief` ran (the slow index entry is hashed). */
const statusReadDuring = async (seconds: number, brief: () => Promise<unknown>) =>
  (await mostStatusReads(seconds, brief)) > 0

test('a new query on an unchanged tree does not read its status again', async () => {
  const repo = await makeRepository(join(dir, 'reuse'), {
    'src/alpha-widget.ts': 'export const alphaWidget = 1\n',
    'src/beta-gadget.ts': 'export const betaGadget = 1\n',
  })
  await slowGitStatus(repo, 0.23)
  assert.equal(await statusReadDuring(0.23, () => buildRepoBrief(repo, 'alpha widget')), true)
  let second: Awaited<ReturnType<typeof buildRepoBrief>> | undefined
  const read = await statusReadDuring(0.23, async () => {
    second = await buildRepoBrief(repo, 'beta gadget')
  })
  assert.equal(read, false, 'the status was read again for a new query')
  assert.equal(second?.files[0]?.path, 'src/beta-gadget.ts')
  assert.deepEqual(second?.files[0]?.exports, ['betaGadget'])

  await writeFile(join(repo, 'src', 'gamma.ts'), 'export const gamma = 1\n')
  assert.equal(
    await statusReadDuring(0.23, () => buildRepoBrief(repo, 'gamma')),
    true,
    'a new file must refresh the inventory',
  )
})

test('an edit that keeps size and mtime still changes the symbols of the old and a new query', async () => {
  const repo = await makeRepository(join(dir, 'stamp'), {
    'src/alpha-widget.ts': 'export const alphaWidgetOne = 1\n',
  })
  const file = join(repo, 'src', 'alpha-widget.ts')
  assert.deepEqual((await buildRepoBrief(repo, 'alpha widget')).files[0]?.exports, [
    'alphaWidgetOne',
  ])
  const { atime, mtime } = await stat(file)
  await writeFile(file, 'export const alphaWidgetTwo = 1\n') // same length
  await utimes(file, atime, mtime)
  assert.deepEqual((await buildRepoBrief(repo, 'alpha widget')).files[0]?.exports, [
    'alphaWidgetTwo',
  ])
  await writeFile(file, 'export const alphaWidgetSix = 1\n')
  await utimes(file, atime, mtime)
  assert.deepEqual((await buildRepoBrief(repo, 'widget alpha again')).files[0]?.exports, [
    'alphaWidgetSix',
  ])
})

test('after the first brief the other sources are parsed in the background; a later question parses none, and an edit still shows', async () => {
  const outside = join(dir, 'outside.ts')
  await writeFile(outside, 'export const outsideSecret = 1\n')
  const files: Record<string, string> = {}
  // More than the 400 one brief parses, so the background parse has the rest to do.
  for (let i = 0; i < 420; i++)
    files[`src/part${i}/unit${i}.ts`] = `export const unitValue${i} = ${i}\n`
  files['src/part0/unit0.test.ts'] = 'export const notParsed = 1\n'
  const repo = await makeRepository(join(dir, 'warm'), files)
  await symlink(outside, join(repo, 'src', 'linked.ts'))

  await repoBriefWarmIdle() // an earlier test's warm, finished before counting
  const before = cachedSourceCount()
  const first = await buildRepoBrief(repo, 'unit7')
  assert.equal(first.files[0]?.path, 'src/part7/unit7.ts')
  await repoBriefWarmIdle()
  // Every source; not the test, and not the link leading out of the repository.
  assert.equal(cachedSourceCount() - before, 420)

  const parsed = cachedSourceCount()
  const later = await buildRepoBrief(repo, 'unitValue413')
  assert.deepEqual(later.files[0]?.exports, ['unitValue413'])
  assert.equal(cachedSourceCount(), parsed, 'a later question parsed a file again')
  assert.ok(!JSON.stringify(later).includes('outsideSecret'))

  await writeFile(join(repo, 'src', 'part413', 'unit413.ts'), 'export const unitRenamed413 = 1\n')
  const edited = await buildRepoBrief(repo, 'unit413')
  assert.deepEqual(edited.files[0]?.exports, ['unitRenamed413'])
})
