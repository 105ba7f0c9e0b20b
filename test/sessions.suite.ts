/**
 * The sessions behaviour, written once and run against both real PostgreSQL
 * (sessions.postgres.test.ts) and the embedded database (sessions.embedded.test.ts).
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Session, SessionSummary } from '../runtime/contracts/sessions.ts'
import { json } from './support/app.ts'

type Request = (path: string, init?: RequestInit) => Response | Promise<Response>
export type SuiteContext = { request: Request; close: () => Promise<void> }

const message = (id: string, text: string) => ({
  id,
  role: 'user' as const,
  parts: [{ type: 'text', text }],
})

export function sessionsSuite(name: string, setup: () => Promise<SuiteContext>) {
  describe(name, () => {
    let ctx: SuiteContext
    before(async () => {
      ctx = await setup()
    })
    after(() => ctx.close())

    const call = async <T = any>(path: string, init?: RequestInit) => {
      const res = await ctx.request(`/api/sessions${path}`, init)
      return { status: res.status, body: (await res.json()) as T }
    }
    const create = async (body: object = {}) => {
      const res = await call<Session>('', json(body, { method: 'POST' }))
      assert.equal(res.status, 201)
      return res.body
    }
    const save = (id: string, body: object) => call(`/${id}`, json(body, { method: 'PUT' }))

    test('a new session lives in the default workspace at revision 0', async () => {
      const session = await create()
      assert.match(session.id, /^ses_[0-9A-Z]{26}$/)
      assert.equal(session.workspaceId, 'wsp_default')
      assert.equal(session.revision, 0)
      assert.equal(session.title, 'New chat')
      assert.equal(session.titleLocked, false)
      const loaded = await call<Session>(`/${session.id}`)
      assert.equal(loaded.status, 200)
      assert.deepEqual(loaded.body, session)
    })

    test('creating a session in an unknown workspace is a 404, not a 500', async () => {
      const res = await call('', json({ workspaceId: 'wsp_nosuchthing' }, { method: 'POST' }))
      assert.equal(res.status, 404)
      assert.equal(res.body.error.code, 'WORKSPACE_NOT_FOUND')
    })

    test('a save stores the messages and increments the revision', async () => {
      const session = await create()
      const res = await save(session.id, { revision: 0, messages: [message('m1', 'hello')] })
      assert.equal(res.status, 200)
      assert.equal(res.body.revision, 1)
      assert.equal(res.body.messageCount, 1)
      const loaded = await call<Session>(`/${session.id}`)
      assert.deepEqual(loaded.body.messages, [message('m1', 'hello')])
    })

    test('a stale save gets 409 with the current session and changes nothing', async () => {
      const session = await create()
      await save(session.id, { revision: 0, messages: [message('m1', 'first')] })
      const stale = await save(session.id, { revision: 0, messages: [message('m2', 'lost?')] })
      assert.equal(stale.status, 409)
      assert.equal(stale.body.error.code, 'REVISION_CONFLICT')
      assert.equal(stale.body.error.message, 'revision conflict')
      assert.equal(stale.body.session.revision, 1)
      assert.deepEqual(stale.body.session.messages, [message('m1', 'first')])
    })

    test('of two saves with the same revision exactly one wins and no update is lost', async () => {
      const session = await create()
      for (let round = 0; round < 5; round++) {
        const results = await Promise.all(
          ['a', 'b'].map((who) =>
            save(session.id, { revision: round, messages: [message(`${who}${round}`, who)] }),
          ),
        )
        const statuses = results.map((r) => r.status).sort()
        assert.deepEqual(statuses, [200, 409])
        const winner = results.find((r) => r.status === 200)!
        const loser = results.find((r) => r.status === 409)!
        // The loser is handed exactly what the winner wrote, so it can merge and retry.
        assert.deepEqual(loser.body.session.messages, winner.body.messages)
        assert.equal(loser.body.session.revision, round + 1)
      }
      const final = await call<Session>(`/${session.id}`)
      assert.equal(final.body.revision, 5)
    })

    test('a revision past the int4 range is a 400 naming the field, not a 500', async () => {
      const session = await create()
      for (const revision of [2_147_483_648, 2 ** 53, -1]) {
        const res = await save(session.id, { revision, messages: [] })
        assert.equal(res.status, 400, JSON.stringify(res.body))
        assert.ok(res.body.error.data.fields.revision, JSON.stringify(res.body.error))
      }
      // The largest int4 is a valid revision: merely a stale one here.
      const stale = await save(session.id, { revision: 2_147_483_647, messages: [] })
      assert.equal(stale.status, 409)
    })

    test('a save of a missing session is a 404', async () => {
      const res = await save('ses_00000000000000000000000000', { revision: 0, messages: [] })
      assert.equal(res.status, 404)
      assert.equal(res.body.error.code, 'SESSION_NOT_FOUND')
    })

    test('a rename locks the title against later saves; before it, saves may set the title', async () => {
      const session = await create()
      const titled = await save(session.id, {
        revision: 0,
        messages: [],
        title: 'From first message',
      })
      assert.equal(titled.body.title, 'From first message')
      const renamed = await call<Session>(
        `/${session.id}`,
        json({ title: 'My name' }, { method: 'PATCH' }),
      )
      assert.equal(renamed.status, 200)
      assert.equal(renamed.body.title, 'My name')
      assert.equal(renamed.body.titleLocked, true)
      assert.equal(renamed.body.revision, 1, 'a rename does not invalidate an open editor')
      const saved = await save(session.id, { revision: 1, messages: [], title: 'Suggested later' })
      assert.equal(saved.status, 200)
      assert.equal(saved.body.title, 'My name')
    })

    test('archive moves a session to the archived list and restore brings it back', async () => {
      const session = await create({ title: 'archive me' })
      const ids = async (status: string) =>
        (await call<{ sessions: SessionSummary[] }>(`?status=${status}`)).body.sessions.map(
          (s) => s.id,
        )
      assert.ok((await ids('active')).includes(session.id))
      const archived = await call<Session>(
        `/${session.id}`,
        json({ archived: true }, { method: 'PATCH' }),
      )
      assert.ok(archived.body.archivedAt)
      assert.ok(!(await ids('active')).includes(session.id))
      assert.ok((await ids('archived')).includes(session.id))
      const restored = await call<Session>(
        `/${session.id}`,
        json({ archived: false }, { method: 'PATCH' }),
      )
      assert.equal(restored.body.archivedAt, null)
      assert.ok((await ids('active')).includes(session.id))
      assert.ok(!(await ids('archived')).includes(session.id))
    })

    test('lists are newest first, filter by workspace and never exceed 200 rows', async () => {
      const first = await create({ title: 'older' })
      const second = await create({ title: 'newer' })
      const list = (await call<{ sessions: SessionSummary[] }>('')).body.sessions
      assert.ok(
        list.findIndex((s) => s.id === second.id) < list.findIndex((s) => s.id === first.id),
      )
      assert.ok(!('messages' in list[0]!), 'lists carry summaries, not messages')
      const other = await call<{ sessions: SessionSummary[] }>('?workspaceId=wsp_elsewhere')
      assert.equal(other.status, 200)
      assert.deepEqual(other.body.sessions, [])
      await Promise.all(Array.from({ length: 205 }, () => create()))
      const capped = await call<{ sessions: SessionSummary[] }>('?workspaceId=wsp_default')
      assert.equal(capped.body.sessions.length, 200)
      const limited = await call<{ sessions: SessionSummary[] }>('?limit=3')
      assert.equal(limited.body.sessions.length, 3)
      const over = await call('?limit=201')
      assert.equal(over.status, 400)
    })

    // These edges have no compute host behind them. Deleting needs the host to delete the
    // session's chat memory first (test/chat.e2e.test.ts covers that path), so without it the
    // row stays rather than leaving memory behind.
    test('delete without a reachable compute host is refused and keeps the session', async () => {
      const session = await create()
      const res = await call(`/${session.id}`, { method: 'DELETE' })
      assert.equal(res.status, 503)
      assert.equal(res.body.error.code, 'COMPUTE_HOST_UNAVAILABLE')
      assert.equal((await call(`/${session.id}`)).status, 200)
      assert.equal(
        (await call('/ses_01JD0000000000000000000000', { method: 'DELETE' })).status,
        404,
      )
    })
  })
}
