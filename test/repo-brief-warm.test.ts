/**
 * Readying a repository's briefs before any question (`warmRepoBrief`, what the host does at
 * start for the workspace a first turn most likely asks about): the inventory it takes is kept for
 * the first question, a question asked while it is being taken shares it instead of reading the
 * repository's status a second time, and a withdrawn warm-up or a withdrawn question costs the
 * other nothing. The status read is made slow (`slowGitStatus`) so it is seen in flight.
 */
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { buildRepoBrief, warmRepoBrief } from '../compute-host/repo-brief/brief.ts'
import {
  makeRepository,
  mostStatusReads,
  sleepers,
  slowGitStatus,
} from './support/brief-fixtures.ts'
import { until } from './support/until.ts'

const dir = await mkdtemp(join(tmpdir(), 'popagent-brief-warm-'))
after(() => rm(dir, { recursive: true, force: true }))

const sources = {
  'src/alpha-widget.ts': 'export const alphaWidget = 1\n',
  'src/beta-gadget.ts': 'export const betaGadget = 1\n',
}

test('a question asked while the tree is readied shares its status read, and the next reads none', async () => {
  const repo = await makeRepository(join(dir, 'shared'), sources)
  await slowGitStatus(repo, 0.31)
  let brief: Awaited<ReturnType<typeof buildRepoBrief>> | undefined
  const most = await mostStatusReads(0.31, async () => {
    const warming = warmRepoBrief(repo)
    // The question comes once the warm-up's status read is under way.
    await until(() => sleepers(0.31).length > 0, 10_000, 'the warm-up reads the status')
    brief = await buildRepoBrief(repo, 'alpha widget')
    await warming
  })
  assert.equal(most, 1, 'the question read the status beside the warm-up')
  assert.equal(brief?.files[0]?.path, 'src/alpha-widget.ts')
  assert.deepEqual(brief?.files[0]?.exports, ['alphaWidget'])
  const later = await mostStatusReads(0.31, () => buildRepoBrief(repo, 'beta gadget'))
  assert.equal(later, 0, 'a later question read the status the warm-up had kept')
})

test('a warm-up withdrawn mid-read does not fail the question waiting on it', async () => {
  const repo = await makeRepository(join(dir, 'withdrawn-warm-up'), sources)
  await slowGitStatus(repo, 0.59)
  const stop = new AbortController()
  const warming = warmRepoBrief(repo, stop.signal)
  await until(() => sleepers(0.59).length > 0, 10_000, 'the warm-up reads the status')
  const asking = buildRepoBrief(repo, 'beta gadget')
  // Give the question time to reach the shared read before the warm-up is withdrawn.
  await new Promise((r) => setTimeout(r, 50))
  stop.abort()
  await assert.rejects(warming, { name: 'AbortError' })
  const brief = await asking
  assert.equal(brief.files[0]?.path, 'src/beta-gadget.ts')
  assert.deepEqual(brief.files[0]?.exports, ['betaGadget'])
})

test('a question withdrawn while it waits on the warm-up ends at once; the warm-up goes on', async () => {
  const repo = await makeRepository(join(dir, 'withdrawn-question'), sources)
  await slowGitStatus(repo, 0.57)
  let warmed = false
  const warming = warmRepoBrief(repo).then(() => (warmed = true))
  await until(() => sleepers(0.57).length > 0, 10_000, 'the warm-up reads the status')
  const stop = new AbortController()
  const asking = buildRepoBrief(repo, 'alpha widget', stop.signal)
  // Give the question time to reach the shared read before withdrawing it.
  await new Promise((r) => setTimeout(r, 50))
  stop.abort()
  await assert.rejects(asking, { name: 'AbortError' })
  assert.equal(warmed, false, 'the question waited for the warm-up to end')
  await warming
  const later = await mostStatusReads(0.57, () => buildRepoBrief(repo, 'alpha widget'))
  assert.equal(later, 0, 'the warm-up did not keep its inventory')
})
