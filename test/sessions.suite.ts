/**
 * The sessions behaviour, written once and run against both real PostgreSQL
 * (sessions.postgres.test.ts) and the embedded database (sessions.embedded.test.ts).
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type {
  CreateSessionInput,
  PatchSessionInput,
  SaveSessionInput,
} from '../runtime/contracts/sessions.ts'
import { errorJson, okJson, typedClient, type Client } from './support/typed-client.ts'

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

    let api: Client['api']['sessions']
    before(() => {
      api = typedClient(ctx).api.sessions
    })
    const get = (id: string) => api[':id'].$get({ param: { id } })
    const create = async (json: CreateSessionInput = {}) => okJson(await api.$post({ json }), 201)
    const save = (id: string, json: SaveSessionInput) => api[':id'].$put({ param: { id }, json })
    const patch = (id: string, json: PatchSessionInput) =>
      api[':id'].$patch({ param: { id }, json })
    const list = async (query: { status?: 'active' | 'archived'; workspaceId?: string } = {}) =>
      (await okJson(await api.$get({ query }), 200)).sessions

    test('a new session lives in the default workspace at revision 0', async () => {
      const session = await create()
      assert.match(session.id, /^ses_[0-9A-Z]{26}$/)
      assert.equal(session.workspaceId, 'wsp_default')
      assert.equal(session.revision, 0)
      assert.equal(session.title, 'New chat')
      assert.equal(session.titleLocked, false)
      const loaded = await okJson(await get(session.id), 200)
      assert.deepEqual(loaded, session)
    })

    test('creating a session in an unknown workspace is a 404, not a 500', async () => {
      const res = await api.$post({ json: { workspaceId: 'wsp_nosuchthing' } })
      assert.equal((await errorJson(res, 404)).error.code, 'WORKSPACE_NOT_FOUND')
    })

    test('a save stores the messages and increments the revision', async () => {
      const session = await create()
      const res = await save(session.id, { revision: 0, messages: [message('m1', 'hello')] })
      const saved = await okJson(res, 200)
      assert.equal(saved.revision, 1)
      assert.equal(saved.messageCount, 1)
      const loaded = await okJson(await get(session.id))
      assert.deepEqual(loaded.messages, [message('m1', 'hello')])
    })

    test('a stale save gets 409 with the current session and changes nothing', async () => {
      const session = await create()
      await save(session.id, { revision: 0, messages: [message('m1', 'first')] })
      const stale = await save(session.id, { revision: 0, messages: [message('m2', 'lost?')] })
      const body = await errorJson(stale, 409)
      assert.equal(body.error.code, 'REVISION_CONFLICT')
      assert.equal(body.error.message, 'revision conflict')
      assert.equal(body.session.revision, 1)
      assert.deepEqual(body.session.messages, [message('m1', 'first')])
    })

    test('of two saves with the same revision exactly one wins and no update is lost', async () => {
      const session = await create()
      // Each round appends to what the last winner saved: a save that took a user message out
      // would first ask the compute host to forget it, and these edges have none (below).
      let kept: ReturnType<typeof message>[] = []
      for (let round = 0; round < 5; round++) {
        const results = await Promise.all(
          ['a', 'b'].map((who) =>
            save(session.id, {
              revision: round,
              messages: [...kept, message(`${who}${round}`, who)],
            }),
          ),
        )
        const statuses = results.map((r) => r.status).sort()
        assert.deepEqual(statuses, [200, 409])
        const winner = await okJson(
          results.find((r) => r.status === 200)!,
          200,
        )
        const loser = await errorJson(
          results.find((r) => r.status === 409)!,
          409,
        )
        // The loser is handed exactly what the winner wrote, so it can merge and retry.
        assert.deepEqual(loser.session.messages, winner.messages)
        assert.equal(loser.session.revision, round + 1)
        kept = winner.messages as typeof kept
      }
      const final = await okJson(await get(session.id))
      assert.equal(final.revision, 5)
      assert.equal(final.messages.length, 5)
    })

    // Taking a user message out of the transcript first deletes that exchange from the chat
    // memory on the compute host (test/transcript-memory.e2e.test.ts), so without a host the save
    // is refused and the transcript stays, as for delete below.
    test('a save that takes a user message out is refused without a compute host, and changes nothing', async () => {
      const session = await create()
      await okJson(
        await save(session.id, {
          revision: 0,
          messages: [message('m1', 'keep'), message('m2', 'x')],
        }),
        200,
      )
      const res = await save(session.id, { revision: 1, messages: [message('m1', 'keep')] })
      assert.equal((await errorJson(res, 503)).error.code, 'COMPUTE_HOST_UNAVAILABLE')
      const loaded = await okJson(await get(session.id))
      assert.equal(loaded.revision, 1)
      assert.equal(loaded.messages.length, 2)
    })

    test('a revision past the int4 range is a 400 naming the field, not a 500', async () => {
      const session = await create()
      for (const revision of [2_147_483_648, 2 ** 53, -1]) {
        const body = await errorJson(await save(session.id, { revision, messages: [] }), 400)
        assert.ok(body.error.data?.fields?.revision, JSON.stringify(body.error))
      }
      // The largest int4 is a valid revision: merely a stale one here.
      const stale = await save(session.id, { revision: 2_147_483_647, messages: [] })
      assert.equal(stale.status, 409)
    })

    test('a save of a missing session is a 404', async () => {
      const res = await save('ses_00000000000000000000000000', { revision: 0, messages: [] })
      assert.equal((await errorJson(res, 404)).error.code, 'SESSION_NOT_FOUND')
    })

    test('a rename locks the title against later saves; before it, saves may set the title', async () => {
      const session = await create()
      const titled = await save(session.id, {
        revision: 0,
        messages: [],
        title: 'From first message',
      })
      assert.equal((await okJson(titled)).title, 'From first message')
      const renamed = await okJson(await patch(session.id, { title: 'My name' }), 200)
      assert.equal(renamed.title, 'My name')
      assert.equal(renamed.titleLocked, true)
      assert.equal(renamed.revision, 1, 'a rename does not invalidate an open editor')
      const saved = await save(session.id, { revision: 1, messages: [], title: 'Suggested later' })
      assert.equal((await okJson(saved, 200)).title, 'My name')
    })

    test('archive moves a session to the archived list and restore brings it back', async () => {
      const session = await create({ title: 'archive me' })
      const ids = async (status: 'active' | 'archived') => (await list({ status })).map((s) => s.id)
      assert.ok((await ids('active')).includes(session.id))
      const archived = await okJson(await patch(session.id, { archived: true }))
      assert.ok(archived.archivedAt)
      assert.ok(!(await ids('active')).includes(session.id))
      assert.ok((await ids('archived')).includes(session.id))
      const restored = await okJson(await patch(session.id, { archived: false }))
      assert.equal(restored.archivedAt, null)
      assert.ok((await ids('active')).includes(session.id))
      assert.ok(!(await ids('archived')).includes(session.id))
    })

    test('lists are newest first, filter by workspace and never exceed 200 rows', async () => {
      const first = await create({ title: 'older' })
      const second = await create({ title: 'newer' })
      const sessions = await list()
      assert.ok(
        sessions.findIndex((s) => s.id === second.id) <
          sessions.findIndex((s) => s.id === first.id),
      )
      assert.ok(!('messages' in sessions[0]!), 'lists carry summaries, not messages')
      assert.deepEqual(await list({ workspaceId: 'wsp_elsewhere' }), [])
      await Promise.all(Array.from({ length: 205 }, () => create()))
      assert.equal((await list({ workspaceId: 'wsp_default' })).length, 200)
      const limited = await okJson(await api.$get({ query: { limit: '3' } }))
      assert.equal(limited.sessions.length, 3)
      const over = await api.$get({ query: { limit: '201' } })
      assert.equal(over.status, 400)
    })

    // These edges have no compute host behind them. Deleting needs the host to delete the
    // session's chat memory first (test/chat.e2e.test.ts covers that path), so without it the
    // row stays rather than leaving memory behind.
    test('delete without a reachable compute host is refused and keeps the session', async () => {
      const session = await create()
      const remove = (id: string) => api[':id'].$delete({ param: { id } })
      const res = await remove(session.id)
      assert.equal((await errorJson(res, 503)).error.code, 'COMPUTE_HOST_UNAVAILABLE')
      assert.equal((await get(session.id)).status, 200)
      assert.equal((await remove('ses_01JD0000000000000000000000')).status, 404)
    })
  })
}
