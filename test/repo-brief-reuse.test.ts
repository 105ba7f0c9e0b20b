/**
 * A new query on an unchanged repository reuses what the last brief learnt (the inventory and
 * each file's symbols), and nothing it reuses outlives a change: an edit that keeps the file's
 * size and puts its old mtime back still shows, for the old query and a new one.
 */
import assert from 'node:assert/strict'
import { mkdtemp, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { buildRepoBrief } from '../compute-host/repo-brief/brief.ts'
import { makeRepository, sleepers, slowGitStatus } from './support/brief-fixtures.ts'

const dir = await mkdtemp(join(tmpdir(), 'popagent-brief-reuse-'))
after(() => rm(dir, { recursive: true, force: true }))

/** Whether the repository's status was read while `brief` ran (the slow index entry is hashed). */
async function statusReadDuring(seconds: number, brief: () => Promise<unknown>) {
  let seen = 0
  const sampler = setInterval(() => (seen = Math.max(seen, sleepers(seconds).length)), 5)
  try {
    await brief()
  } finally {
    clearInterval(sampler)
  }
  return seen > 0
}

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
