/**
 * Browser recordings' retention (compute-host/browser/recording-retention.ts) on PostgreSQL: rows
 * past the retention go with their files, files whose row is gone go too, the rest stays.
 */
import assert from 'node:assert/strict'
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { eq } from '../db/drizzle-orm.ts'
import { browserRecordings, sessions } from '../db/schema/index.ts'
import { sweepBrowserRecordings } from '../compute-host/browser/recording-retention.ts'
import {
  finishBrowserRecording,
  listBrowserRecordings,
  startBrowserRecording,
} from '../runtime/browser/recordings.ts'
import { openBrowserSession } from '../runtime/browser/sessions.ts'
import { createId } from '../runtime/ids.ts'
import { createTestDatabase } from './support/database.ts'

test('recordings past the retention and files without a row are deleted; the rest stays', async () => {
  const t = await createTestDatabase()
  const dir = await mkdtemp(join(tmpdir(), 'popagent-recording-retention-'))
  try {
    const chatSessionId = createId('session')
    await t.db
      .insert(sessions)
      .values({ id: chatSessionId, workspaceId: 'wsp_default', title: 't' })
    const session = await openBrowserSession(t.db, { chatSessionId }, undefined)
    const keep = async (stoppedDaysAgo: number) => {
      const row = await startBrowserRecording(t.db, session.id)
      await finishBrowserRecording(t.db, row.id, {
        state: 'ready',
        bytes: 4,
        sha256: 'x',
        reason: 'test',
      })
      const at = new Date(Date.now() - stoppedDaysAgo * 86_400_000)
      await t.db
        .update(browserRecordings)
        .set({ startedAt: at, stoppedAt: at })
        .where(eq(browserRecordings.id, row.id))
      await writeFile(join(dir, `${row.id}.zip`), 'zip!')
      return row.id
    }
    await keep(15)
    const recent = await keep(13)
    const orphan = createId('browserRecording')
    await writeFile(join(dir, `${orphan}.zip`), 'zip!')
    await writeFile(join(dir, 'notes.txt'), 'not ours')

    assert.equal(await sweepBrowserRecordings({ db: t.db, dir, retentionDays: 14 }), 2)
    assert.deepEqual(
      (await listBrowserRecordings(t.db, session.id)).map((r) => r.id),
      [recent],
    )
    assert.deepEqual((await readdir(dir)).sort(), [`${recent}.zip`, 'notes.txt'].sort())
  } finally {
    await rm(dir, { recursive: true, force: true })
    await t.drop()
  }
})
