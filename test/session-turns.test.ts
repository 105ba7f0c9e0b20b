/**
 * A chat turn reads and writes its session without the conversation: `getSummary` and
 * `appendTurn` give the workspace, the counts and the revision, never the messages, which grow
 * with every turn; appends that race each keep their messages, in one order. Run on real
 * PostgreSQL and on the embedded database.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Db } from '../db/index.ts'
import * as Sessions from '../runtime/sessions/index.ts'
import { createEmbeddedDatabase, createTestDatabase } from './support/database.ts'

const turn = (n: number) => [
  { id: `u${n}`, role: 'user' as const, parts: [{ type: 'text', text: `question ${n}` }] },
  { id: `a${n}`, role: 'assistant' as const, parts: [{ type: 'text', text: `answer ${n}` }] },
]

const databases: [string, () => Promise<{ db: Db; close: () => Promise<void> }>][] = [
  [
    'PostgreSQL',
    async () => {
      const created = await createTestDatabase()
      return { db: created.db, close: created.drop }
    },
  ],
  ['embedded', createEmbeddedDatabase],
]

for (const [name, open] of databases) {
  describe(`a turn's session (${name})`, () => {
    let db: Db
    let close: () => Promise<void>
    before(async () => {
      ;({ db, close } = await open())
    })
    after(() => close())

    test('a summary counts the messages without carrying them; an unknown id has none', async () => {
      const session = await Sessions.create(db, {})
      const empty = await Sessions.getSummary(db, session.id)
      assert.equal(empty?.messageCount, 0)
      assert.equal(empty?.workspaceId, session.workspaceId)
      assert.equal(empty?.archivedAt, null)
      assert.ok(!('messages' in empty!), 'the summary carried the messages')
      await Sessions.appendTurn(db, session.id, turn(1) as never)
      assert.equal((await Sessions.getSummary(db, session.id))?.messageCount, 2)
      assert.equal(await Sessions.getSummary(db, 'ses_00000000000000000000000000'), undefined)
    })

    test('an appended turn comes back as the new revision and count; the row keeps every message', async () => {
      const session = await Sessions.create(db, {})
      const first = await Sessions.appendTurn(db, session.id, turn(1) as never, 'First words')
      const second = await Sessions.appendTurn(db, session.id, turn(2) as never, 'Other words')
      assert.deepEqual(
        [first.revision, first.messageCount, second.revision, second.messageCount],
        [1, 2, 2, 4],
      )
      assert.equal(second.title, 'First words', 'the second turn renamed the session')
      assert.ok(!('messages' in second), 'the append sent the conversation back')
      const stored = await Sessions.get(db, session.id)
      assert.deepEqual(
        stored?.messages.map((m) => m.id),
        ['u1', 'a1', 'u2', 'a2'],
      )
      await assert.rejects(
        Sessions.appendTurn(db, 'ses_00000000000000000000000000', turn(3) as never),
        Sessions.SessionNotFound,
      )
    })

    test('appends that race each keep both messages, numbered without a gap or a clash', async () => {
      const session = await Sessions.create(db, {})
      const added = await Promise.all(
        Array.from({ length: 8 }, (_, n) => Sessions.appendTurn(db, session.id, turn(n) as never)),
      )
      assert.deepEqual(
        added.map((a) => a.revision).sort((a, b) => a - b),
        [1, 2, 3, 4, 5, 6, 7, 8],
      )
      const stored = (await Sessions.get(db, session.id))!
      assert.equal(stored.messageCount, 16)
      // Each turn's question is followed by its own answer, whatever order the turns landed in.
      const ids = stored.messages.map((m) => m.id)
      for (let n = 0; n < 8; n++) assert.equal(ids[ids.indexOf(`u${n}`) + 1], `a${n}`)
    })
  })
}
