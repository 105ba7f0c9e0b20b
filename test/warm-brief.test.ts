/**
 * What the host readies at start (`warmLikelyBrief`, which `popagent start` and `popagent host`
 * run once the engines are up): the repository of the most recently active session's workspace,
 * else the default workspace's, so a first turn's brief does not read the repository's status.
 * A workspace whose directory is gone is logged and left alone; nothing throws.
 */
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { createLogger } from '../compute-host/log.ts'
import { buildRepoBrief } from '../compute-host/repo-brief/brief.ts'
import { warmLikelyBrief } from '../compute-host/runs/warm-brief.ts'
import * as Sessions from '../runtime/sessions/index.ts'
import * as Workspaces from '../runtime/workspaces/index.ts'
import { makeRepository, mostStatusReads, slowGitStatus } from './support/brief-fixtures.ts'
import { createTestDatabase } from './support/database.ts'

const database = await createTestDatabase()
const workspaceRoot = await mkdtemp(join(tmpdir(), 'popagent-warm-brief-'))
after(async () => {
  await database.drop()
  await rm(workspaceRoot, { recursive: true, force: true })
})

const lines: Array<{ message: string; workspaceId?: string; error?: string }> = []
const log = createLogger({ write: (line) => lines.push(JSON.parse(line)) })
const deps = { db: database.db, workspaceRoot, log }

/** Whether a brief of `repo` read its (slow) status: not when the warm-up kept its inventory. */
const readsStatus = async (repo: string, seconds: number) =>
  (await mostStatusReads(seconds, () => buildRepoBrief(repo, 'alpha widget'))) > 0

const sources = { 'src/alpha-widget.ts': 'export const alphaWidget = 1\n' }

test('before any session, the default workspace is readied', async () => {
  // The migrated database registers the default workspace at `popagent` under the root.
  const repo = await makeRepository(join(workspaceRoot, 'popagent'), sources)
  await slowGitStatus(repo, 0.33)
  lines.length = 0
  await warmLikelyBrief(deps)
  assert.deepEqual(
    lines.map((l) => [l.message, l.workspaceId]),
    [['repository brief readied', 'wsp_default']],
  )
  assert.equal(await readsStatus(repo, 0.33), false, 'the first brief read the status again')
})

test("the most recently active session's workspace is readied, not the default", async () => {
  const repo = await makeRepository(join(workspaceRoot, 'other'), sources)
  await slowGitStatus(repo, 0.35)
  const other = await Workspaces.create(database.db, { name: 'other', path: 'other' })
  await Sessions.create(database.db, { workspaceId: 'wsp_default' })
  await Sessions.create(database.db, { workspaceId: other.id })
  lines.length = 0
  await warmLikelyBrief(deps)
  assert.deepEqual(
    lines.map((l) => [l.message, l.workspaceId]),
    [['repository brief readied', other.id]],
  )
  assert.equal(await readsStatus(repo, 0.35), false, 'the first brief read the status again')
})

test('a workspace whose directory is gone is logged and left alone', async () => {
  const gone = await Workspaces.create(database.db, { name: 'gone', path: 'gone' })
  await Sessions.create(database.db, { workspaceId: gone.id })
  lines.length = 0
  await warmLikelyBrief(deps)
  assert.deepEqual(
    lines.map((l) => [l.message, l.workspaceId]),
    [['repository brief not readied at start', gone.id]],
  )
  assert.match(lines[0]?.error ?? '', /not an existing directory/)
})
