/**
 * The outbox engine sleeps when it has nothing to send: `msUntilDue` on an empty outbox is
 * "nothing open", not "due now" (which kept the engine querying in a loop on every host).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { msUntilDue } from '../compute-host/channels/outbox/sql/next-due.ts'
import { enqueueChunks } from '../compute-host/channels/outbox/sql/enqueue.ts'
import { sql } from '../db/drizzle-orm.ts'
import { channels } from '../db/schema/index.ts'
import { createTestDatabase } from './support/database.ts'

test('an empty outbox has nothing due; a queued chunk is due now, a paced one later', async () => {
  const t = await createTestDatabase()
  try {
    assert.equal(await msUntilDue(t.db), undefined)

    await t.db.insert(channels).values({
      id: 'chn_idle',
      kind: 'webhook',
      name: 'idle',
      enabled: true,
      workspaceId: 'wsp_default',
      settings: {},
      allowedSenders: [],
      secretIds: {},
      state: 'ok',
    })
    const target = { conversation: 'c1', thread: '' }
    await enqueueChunks(t.db, {
      channelId: 'chn_idle',
      bindingId: null,
      target,
      deliveryId: 'd1',
      chunks: ['one'],
      paceMs: 0,
    })
    assert.equal(await msUntilDue(t.db), 0)

    // Sent a moment ago with a 60 s pace: the chat's next chunk waits for the pace.
    await t.db.execute(
      sql`update popagent_channel_outbox set state = 'sent', sent_at = now(), pace_ms = 60000`,
    )
    await enqueueChunks(t.db, {
      channelId: 'chn_idle',
      bindingId: null,
      target,
      deliveryId: 'd2',
      chunks: ['two'],
      paceMs: 60_000,
    })
    const ms = await msUntilDue(t.db)
    assert.ok(ms !== undefined && ms > 50_000 && ms <= 60_000, `due in ${ms} ms`)
  } finally {
    await t.drop()
  }
})
