/**
 * A browser call's record (runtime/browser/sessions.ts): one statement that counts the call and
 * answers who controls the session, committed without waiting for the WAL flush, and only its own
 * transaction: the next statements commit as the server is configured.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from '../db/drizzle-orm.ts'
import type { Db } from '../db/index.ts'
import { sessions } from '../db/schema/index.ts'
import {
  closeBrowserSession,
  getBrowserSession,
  openBrowserSession,
  recordBrowserCall,
  setBrowserController,
} from '../runtime/browser/sessions.ts'
import { createId } from '../runtime/ids.ts'
import { createTestDatabase } from './support/database.ts'

test("a call's record skips the WAL flush wait for its own statement only, and still answers takeover", async () => {
  const t = await createTestDatabase()
  try {
    const chatSessionId = createId('session')
    await t.db
      .insert(sessions)
      .values({ id: chatSessionId, workspaceId: 'wsp_default', title: 't' })
    const session = await openBrowserSession(t.db, { chatSessionId }, undefined)
    const setting = async (db: Db) => {
      const result = (await db.execute(sql`show synchronous_commit`)) as unknown
      const rows = Array.isArray(result) ? result : (result as { rows: unknown[] }).rows
      return (rows[0] as { synchronous_commit: string }).synchronous_commit
    }
    const configured = await setting(t.db)

    const inside = await t.db.transaction(async (tx) => {
      const controller = await recordBrowserCall(tx as unknown as Db, session.id, {
        operation: 'browser_tabs',
        interactive: false,
      })
      return { controller, setting: await setting(tx as unknown as Db) }
    })
    assert.deepEqual(inside, { controller: 'agent', setting: 'off' })
    assert.equal(await setting(t.db), configured, 'the setting outlived the statement')

    // Takeover is read in the same statement: an interactive call is not counted, a read is.
    await setBrowserController(t.db, session.id, 'human')
    assert.equal(
      await recordBrowserCall(t.db, session.id, { operation: 'browser_click', interactive: true }),
      'human',
    )
    await recordBrowserCall(t.db, session.id, { operation: 'browser_snapshot', interactive: false })
    assert.equal((await getBrowserSession(t.db, session.id))?.callCount, 2)

    await closeBrowserSession(t.db, session.id, 'done')
    assert.equal(
      await recordBrowserCall(t.db, session.id, { operation: 'browser_tabs', interactive: false }),
      undefined,
    )
  } finally {
    await t.drop()
  }
})
