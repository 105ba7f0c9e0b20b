/**
 * The live-turn registry's marks on the embedded database (PGlite), where `popagent start` keeps
 * them: every mark left at start is an orphan (only one process opens the database); a mark not
 * renewed for a lease is closed by any host's sweep, never one this host still runs; a turn whose
 * mark is gone is stopped at the next heartbeat, and its end saves nothing; a claim that names the
 * vault its message was redacted with is refused when the vault moved on.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { UIMessageChunk } from 'ai'
import { sql } from '../db/drizzle-orm.ts'
import { rowsOf } from '../db/rows.ts'
import { createLiveTurns } from '../compute-host/runs/live-turns.ts'
import * as Sessions from '../runtime/sessions/index.ts'
import {
  claimLiveTurn,
  INTERRUPTED_BY_RESTART,
  saveLiveTurn,
} from '../runtime/sessions/live-turns.ts'
import { userMessage } from './support/chat.ts'
import { createEmbeddedDatabase } from './support/database.ts'
import { quietLog } from './support/stack.ts'
import { until } from './support/until.ts'

describe('live-turn marks on the embedded database', () => {
  let database: Awaited<ReturnType<typeof createEmbeddedDatabase>>
  before(async () => {
    database = await createEmbeddedDatabase()
  })
  after(() => database.close())

  const db = () => database.db
  const marks = async () =>
    rowsOf<{ session_id: string; host: string }>(
      await db().execute(sql`select session_id, host from popagent_live_turns order by host`),
    )
  const plant = async (host: string, heartbeat: string) => {
    const { id } = await Sessions.create(db(), {})
    await db().execute(sql`insert into popagent_live_turns
      (session_id, turn_id, host, message, heartbeat_at)
      values (${id}, ${`trn_${id.slice(4)}`}, ${host},
        ${JSON.stringify(userMessage(`left by ${host}`))}::jsonb, ${heartbeat}::timestamptz)`)
    return id
  }
  /** A turn that streams nothing until its signal aborts, then ends. */
  const endless = (signal: AbortSignal) =>
    new ReadableStream<UIMessageChunk>({
      start(controller) {
        signal.addEventListener('abort', () => controller.close())
      },
    })

  test('a mark is claimed only on an open session of the workspace given, and only once; the claim says what it found', async () => {
    // The chat driver reads the session through its claim, so the claim itself must refuse a
    // session the driver then refuses, leaving no mark behind, and say why.
    const { id } = await Sessions.create(db(), {})
    const { workspaceId } = (await Sessions.getSummary(db(), id))!
    const claim = (over: { sessionId?: string; workspaceId?: string }) =>
      claimLiveTurn(db(), {
        sessionId: id,
        workspaceId,
        turnId: 'trn_claim',
        host: 'this-host:1',
        message: userMessage('hello'),
        ...over,
      })
    const open = { workspaceId, archived: false, messageCount: 0 }
    assert.deepEqual(await claim({ workspaceId: 'wsp_another' }), { claimed: false, session: open })
    assert.deepEqual(await claim({ sessionId: 'ses_01JD0000000000000000000000' }), {
      claimed: false,
      session: undefined,
    })
    const { id: archived } = await Sessions.create(db(), {})
    await db().execute(sql`update popagent_sessions set archived_at = now() where id = ${archived}`)
    assert.deepEqual(await claim({ sessionId: archived }), {
      claimed: false,
      session: { ...open, archived: true },
    })
    assert.deepEqual(await marks(), [])
    assert.deepEqual(await claim({}), { claimed: true, session: open })
    assert.deepEqual(await claim({}), { claimed: false, session: open })
    assert.deepEqual(await marks(), [{ session_id: id, host: 'this-host:1' }])
    await db().execute(sql`delete from popagent_live_turns`)
  })

  test('a claim that names the vault it redacted with is refused once the vault moved on', async () => {
    // The chat driver redacts the message with the secrets this host knows and claims without
    // reading the vault first: the claim itself must refuse when another host stored, rotated or
    // deleted a secret since, so the mark never keeps a message redacted with a stale vault.
    const { id } = await Sessions.create(db(), {})
    const claim = (vaultKnown: ReadonlyMap<string, number>) =>
      claimLiveTurn(db(), {
        sessionId: id,
        turnId: 'trn_vault',
        host: 'this-host:1',
        message: userMessage('mine is sk-live-1'),
        vaultKnown,
      }).then((c) => c.claimed)
    const store = (secretId: string, version: number) =>
      db().execute(sql`insert into popagent_secrets
        (id, name, version, key_id, nonce, ciphertext, fingerprint)
        values (${secretId}, ${secretId}, ${version}, 'k1', 'n', 'c', 'f')
        on conflict (id) do update set version = excluded.version`)
    try {
      await store('sec_a', 1)
      assert.equal(await claim(new Map()), false, 'a secret stored elsewhere is not known here')
      await store('sec_b', 1)
      assert.equal(await claim(new Map([['sec_a', 1]])), false, 'one of two is not enough')
      await store('sec_a', 2)
      const current = new Map([
        ['sec_b', 1],
        ['sec_a', 2],
      ])
      assert.equal(await claim(new Map([...current, ['sec_a', 1]])), false, 'rotated since')
      assert.equal(await claim(new Map([...current, ['sec_c', 1]])), false, 'deleted since')
      assert.deepEqual(await marks(), [])
      assert.equal(await claim(current), true, 'the same secrets in any order claim')
      assert.deepEqual(await marks(), [{ session_id: id, host: 'this-host:1' }])
    } finally {
      await db().execute(sql`delete from popagent_live_turns`)
      await db().execute(sql`delete from popagent_secrets`)
    }
  })

  test('a finished turn is saved and its mark cleared in one statement, the other mark kept', async () => {
    const { id } = await Sessions.create(db(), {})
    const other = await plant('another-host:3100', new Date().toISOString())
    const mark = { sessionId: id, turnId: 'trn_saved', host: 'this-host:1' }
    assert.equal(
      (await claimLiveTurn(db(), { ...mark, message: userMessage('save me') })).claimed,
      true,
    )
    const saved = await saveLiveTurn(db(), {
      sessionId: id,
      turnId: 'trn_saved',
      messages: [userMessage('save me'), userMessage('the reply')],
      title: 'Save me',
    })
    assert.deepEqual(
      { revision: saved?.revision, messageCount: saved?.messageCount, title: saved?.title },
      { revision: 1, messageCount: 2, title: 'Save me' },
    )
    assert.equal(saved?.liveTurn, null, 'the summary shows the mark this save cleared as gone')
    assert.deepEqual(await marks(), [{ session_id: other, host: 'another-host:3100' }])
    const session = (await Sessions.get(db(), id))!
    assert.deepEqual(
      session.messages.map((m) => m.parts),
      [userMessage('save me').parts, userMessage('the reply').parts],
    )
    // Saved once: the mark is gone, so the same end again saves nothing.
    assert.equal(await saveLiveTurn(db(), { ...mark, messages: [userMessage('again')] }), undefined)
    assert.equal((await Sessions.get(db(), id))!.messages.length, 2)
    await db().execute(sql`delete from popagent_live_turns`)
  })

  test('every mark left at start is closed, whatever host it names, with the user’s message', async () => {
    const ids = [
      await plant('this-host:0', new Date().toISOString()),
      await plant('another-host:3100', new Date().toISOString()),
    ]
    const live = createLiveTurns({
      db: db(),
      log: quietLog(),
      host: 'this-host:1',
      ownsEveryRow: true,
    })
    await live.start()
    await live.close()
    assert.deepEqual(await marks(), [])
    for (const id of ids) {
      const session = (await Sessions.get(db(), id))!
      assert.equal(session.liveTurn, null)
      assert.equal(session.messages[0]?.role, 'user')
      assert.equal(session.messages[1]?.metadata?.error, INTERRUPTED_BY_RESTART)
    }
  })

  test('the sweep closes a mark no host renewed for a lease, never one this host runs', async () => {
    const live = createLiveTurns({ db: db(), log: quietLog(), host: 'this-host:1', leaseMs: 300 })
    await live.start()
    try {
      const { id: running } = await Sessions.create(db(), {})
      const claimed = await live.claim({
        sessionId: running,
        turnId: 'trn_running',
        message: userMessage('still going'),
      })
      claimed.publish(endless(claimed.signal))
      // A mark as fresh as any at first, which then nobody renews.
      const abandoned = await plant('gone-host:3100', new Date().toISOString())
      await until(
        async () => (await marks()).every((m) => m.session_id !== abandoned),
        5_000,
        'the sweep',
      )
      // Past several leases, this host's own running turn is kept: its heartbeat renews it.
      await new Promise((r) => setTimeout(r, 900))
      assert.deepEqual(await marks(), [{ session_id: running, host: 'this-host:1' }])
      assert.equal(claimed.signal.aborted, false)
      assert.equal((await Sessions.get(db(), abandoned))!.messages.length, 2)
    } finally {
      await live.close()
    }
  })

  test('a turn whose mark is gone is stopped at the next heartbeat, and its end saves nothing', async () => {
    const live = createLiveTurns({ db: db(), log: quietLog(), host: 'this-host:1', leaseMs: 300 })
    await live.start()
    try {
      const { id } = await Sessions.create(db(), {})
      const claimed = await live.claim({
        sessionId: id,
        turnId: 'trn_lost',
        message: userMessage('cut off'),
      })
      claimed.publish(endless(claimed.signal))
      // Recovered elsewhere while this host was cut off: the mark and a saved turn exist there.
      await db().execute(sql`delete from popagent_live_turns where session_id = ${id}`)
      await until(() => claimed.signal.aborted, 5_000, 'the heartbeat to stop the turn')
      assert.equal(claimed.signal.reason, 'lost')
      const saved = await saveLiveTurn(db(), {
        sessionId: id,
        turnId: 'trn_lost',
        messages: [userMessage('cut off')],
      })
      assert.equal(saved, undefined)
      assert.equal((await Sessions.get(db(), id))!.messages.length, 0)
    } finally {
      await live.close()
    }
  })
})
