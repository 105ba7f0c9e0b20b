/**
 * Approvals are pruned (issue 38): the host's hourly retention pass deletes approvals answered or
 * expired more than 30 days ago, and keeps newer ones and any still open, on real PostgreSQL.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from '../db/drizzle-orm.ts'
import { rowsOf } from '../db/rows.ts'
import { startFactRetention } from '../compute-host/recall/retention-loop.ts'
import * as Approvals from '../runtime/approvals/index.ts'
import { createTestDatabase } from './support/database.ts'
import { quietLog } from './support/stack.ts'
import { waitFor } from './support/until.ts'

test('the retention pass deletes approvals settled over 30 days ago and keeps the rest', async (t) => {
  const database = await createTestDatabase()
  t.after(() => database.drop())
  const { db } = database
  const ask = async (label: string) =>
    (
      await Approvals.create(db, {
        toolName: 'shell',
        summary: label,
        reason: null,
        timeoutMs: 60_000,
      })
    ).id
  /** Moves an approval into the past: created `days` ago, its time up a minute later. */
  const age = (id: string, days: number) =>
    db.execute(sql`
      update popagent_approvals
      set created_at = now() - make_interval(days => ${days}),
          expires_at = now() - make_interval(days => ${days}) + interval '1 minute'
      where id = ${id}
    `)
  const decideDaysAgo = async (id: string, days: number) => {
    await Approvals.decide(db, id, 'allow', 'owner-web')
    await db.execute(sql`
      update popagent_approvals set decided_at = now() - make_interval(days => ${days})
      where id = ${id}
    `)
  }

  const oldDecided = await ask('answered 31 days ago')
  await decideDaysAgo(oldDecided, 31)
  await age(oldDecided, 31)
  const recentDecided = await ask('answered 29 days ago')
  await decideDaysAgo(recentDecided, 29)
  await age(recentDecided, 29)
  const oldExpired = await ask('expired 31 days ago')
  await age(oldExpired, 31)
  await Approvals.expire(db, oldExpired)
  const oldUnmarked = await ask('never marked, its time up 40 days ago')
  await age(oldUnmarked, 40)
  const recentExpired = await ask('expired 2 days ago')
  await age(recentExpired, 2)
  await Approvals.expire(db, recentExpired)
  const open = await ask('still open')

  const ids = async () =>
    rowsOf<{ id: string }>(await db.execute(sql`select id from popagent_approvals order by id`))
      .map((r) => r.id)
      .sort()
  assert.equal((await ids()).length, 6)

  const loop = startFactRetention(db, quietLog())
  try {
    const kept = await waitFor(async () => {
      const now = await ids()
      return now.length === 3 ? now : undefined
    }, 10_000)
    assert.deepEqual(kept, [recentDecided, recentExpired, open].sort())
  } finally {
    loop.stop()
  }
  // A second pass finds nothing more.
  assert.equal(await Approvals.prune(db), 0)
})
