/**
 * Long-term memories (X1), written once and run against real PostgreSQL
 * (memories.postgres.test.ts) and the embedded database (memories.embedded.test.ts): the API as
 * the user, the fact rules as an agent and evolution write them, retention, and the trigger that
 * refuses agents and automatic processes on the user's memories in the database itself.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { eq, sql } from '../db/drizzle-orm.ts'
import type { Db } from '../db/index.ts'
import { memories, recallItems } from '../db/schema/index.ts'
import * as Memories from '../runtime/memories/index.ts'
import * as Settings from '../runtime/settings/index.ts'
import { errorJson, okJson, typedClient, type Client } from './support/typed-client.ts'

type Request = (path: string, init?: RequestInit) => Response | Promise<Response>
export type MemoriesContext = { request: Request; db: Db; close: () => Promise<void> }

export function memoriesSuite(name: string, setup: () => Promise<MemoriesContext>) {
  describe(name, () => {
    let ctx: MemoriesContext
    let api: Client['api']['memories']
    before(async () => {
      ctx = await setup()
      api = typedClient(ctx).api.memories
    })
    after(() => ctx.close())

    const create = async (content: string) => okJson(await api.$post({ json: { content } }), 201)
    const itemsOf = (memoryId: string) =>
      ctx.db.select().from(recallItems).where(eq(recallItems.memoryId, memoryId))

    test('the user creates, lists, searches, edits and deletes a memory; recall follows it', async () => {
      const a = await create('The deploy script lives in ops/deploy-7f3.sh')
      const b = await create('Prefer 100% pure functions in the parser')
      assert.equal(a.owner, 'user')
      assert.equal(a.key, null)
      assert.deepEqual(
        (await itemsOf(a.id)).map((i) => [i.kind, i.content]),
        [['user_memory', a.content]],
      )
      const all = await okJson(await api.$get({ query: {} }), 200)
      assert.deepEqual(
        all.memories.map((m) => m.id),
        [b.id, a.id],
      )
      const found = await okJson(await api.$get({ query: { q: 'DEPLOY ops/' } }), 200)
      assert.deepEqual(
        found.memories.map((m) => m.id),
        [a.id],
      )
      // LIKE metacharacters are literal: "100%" matches b only, "_" matches nothing.
      const percent = await okJson(await api.$get({ query: { q: '100%' } }), 200)
      assert.deepEqual(
        percent.memories.map((m) => m.id),
        [b.id],
      )
      assert.equal((await okJson(await api.$get({ query: { q: '_' } }), 200)).memories.length, 0)

      const edited = await okJson(
        await api[':id'].$patch({ param: { id: a.id }, json: { content: 'ops/deploy-9.sh now' } }),
        200,
      )
      assert.equal(edited.content, 'ops/deploy-9.sh now')
      assert.deepEqual(
        (await itemsOf(a.id)).map((i) => i.content),
        ['ops/deploy-9.sh now'],
      )
      await okJson(await api[':id'].$delete({ param: { id: a.id } }), 200)
      await errorJson(await api[':id'].$get({ param: { id: a.id } }), 404)
      assert.equal((await itemsOf(a.id)).length, 0, 'the recall item went with the memory')
    })

    test('bad input is a 400 naming the field', async () => {
      const empty = await errorJson(await api.$post({ json: { content: '   ' } }), 400)
      assert.ok(empty.error.data?.fields?.content)
      const long = await errorJson(await api.$post({ json: { content: 'x'.repeat(2_001) } }), 400)
      assert.ok(long.error.data?.fields?.content)
      const id = await errorJson(await api[':id'].$get({ param: { id: 'ses_x' } }), 400)
      assert.equal(id.error.code, 'VALIDATION_FAILED')
    })

    test('a keyed fact supersedes the live one and keeps it as history; only the head is recalled', async () => {
      const first = await Memories.retainFact(ctx.db, {
        owner: 'agent',
        agentId: 'coder',
        key: 'package-manager',
        content: 'the repository uses npm',
        provenance: { sessionId: null, turnId: 'trn_one' },
      })
      const second = await Memories.retainFact(ctx.db, {
        owner: 'agent',
        agentId: 'coder',
        key: 'package-manager',
        content: 'the repository moved to pnpm',
        provenance: { turnId: 'trn_two' },
      })
      const withHistory = await okJson(await api[':id'].$get({ param: { id: second.id } }), 200)
      assert.deepEqual(
        withHistory.history.map((m) => [m.content, m.supersededBy]),
        [
          ['the repository uses npm', second.id],
          ['the repository moved to pnpm', null],
        ],
      )
      assert.equal(withHistory.history[0]!.provenance.turnId, 'trn_one')
      assert.equal((await itemsOf(first.id)).length, 0, 'the superseded fact is not recalled')
      assert.equal((await itemsOf(second.id))[0]?.kind, 'agent_fact')
      const live = await okJson(await api.$get({ query: { owner: 'agent' } }), 200)
      assert.deepEqual(
        live.memories.map((m) => m.id),
        [second.id],
      )
      const history = await okJson(
        await api.$get({ query: { owner: 'agent', history: 'true' } }),
        200,
      )
      assert.equal(history.memories.length, 2)
      // The user may not edit a fact in place (its history would lie), only delete it.
      const edit = await errorJson(
        await api[':id'].$patch({ param: { id: second.id }, json: { content: 'x' } }),
        409,
      )
      assert.equal(edit.error.code, 'FACT_READ_ONLY')
    })

    test('evolution facts are keyed evolution.<agent>.<key>; bad keys are refused', async () => {
      const fact = await Memories.retainFact(ctx.db, {
        owner: 'evolution',
        agentId: 'reviewer',
        key: 'style.semicolons',
        content: 'the owner prefers no semicolons',
      })
      assert.equal(fact.key, 'evolution.reviewer.style.semicolons')
      for (const key of ['Bad Key', '', '.dot', 'x'.repeat(129)]) {
        await assert.rejects(
          Memories.retainFact(ctx.db, { owner: 'agent', agentId: 'coder', key, content: 'c' }),
          (e: Error & { code?: string }) => e.code === 'INVALID_FACT_KEY',
          key,
        )
      }
    })

    test('no agent or automatic process changes or deletes a user memory', async () => {
      const mine = await create('my own note: never rewrite the changelog')
      const refused = (e: Error & { code?: string }) => e.code === 'USER_MEMORY_PROTECTED'
      await assert.rejects(
        Memories.update(ctx.db, mine.id, { content: 'rewritten' }, 'agent'),
        refused,
      )
      await assert.rejects(Memories.remove(ctx.db, mine.id, 'evolution'), refused)
      await assert.rejects(
        Memories.retainFact(ctx.db, {
          owner: 'agent',
          agentId: 'coder',
          key: 'x',
          content: 'rewritten',
          replaces: mine.id,
        }),
        refused,
      )
      // The database refuses too, whatever code path an agent took.
      for (const actor of ['agent', 'evolution', 'retention']) {
        await assert.rejects(
          ctx.db.transaction(async (tx) => {
            await tx.execute(sql`select set_config('popagent.actor', ${actor}, true)`)
            await tx.update(memories).set({ content: 'sneaky' }).where(eq(memories.id, mine.id))
          }),
          (e: Error) =>
            /a memory the user wrote cannot be changed/.test(
              `${e.message} ${(e.cause as Error | undefined)?.message}`,
            ),
          actor,
        )
      }
      const after = await okJson(await api[':id'].$get({ param: { id: mine.id } }), 200)
      assert.equal(after.content, 'my own note: never rewrite the changelog')
    })

    test('retention prunes old facts and never a user memory', async () => {
      const mine = await create('a user memory from long ago')
      const fact = await Memories.retainFact(ctx.db, {
        owner: 'agent',
        agentId: 'tester',
        key: 'old-fact',
        content: 'an old fact',
      })
      const old = new Date(Date.now() - 400 * 86_400_000)
      // Age both rows as the owner (the trigger lets the user's own writes through).
      await ctx.db.transaction(async (tx) => {
        await tx.execute(sql`select set_config('popagent.actor', 'user', true)`)
        await tx.update(memories).set({ createdAt: old }).where(eq(memories.id, mine.id))
        await tx.update(memories).set({ createdAt: old }).where(eq(memories.id, fact.id))
      })
      assert.equal(await Memories.pruneFacts(ctx.db), 0, 'retention off by default')
      await Settings.memory.patch(ctx.db, { factRetentionDays: 30 })
      try {
        assert.ok((await Memories.pruneFacts(ctx.db)) >= 1)
        await errorJson(await api[':id'].$get({ param: { id: fact.id } }), 404)
        const kept = await okJson(await api[':id'].$get({ param: { id: mine.id } }), 200)
        assert.equal(kept.content, 'a user memory from long ago')
      } finally {
        await Settings.memory.patch(ctx.db, { factRetentionDays: null })
      }
    })
  })
}
