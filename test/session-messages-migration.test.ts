/**
 * Migration 0018 moves each session's messages from the jsonb array on its row to rows of their
 * own, in order, and keeps the count on the session row; a session migrated this way takes new
 * turns after its old messages. Run on real PostgreSQL and on the embedded database, from a
 * database migrated up to 0017 and holding sessions in the old shape.
 */
import assert from 'node:assert/strict'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { migrateDatabase, MIGRATIONS_FOLDER } from '../compute-host/database/migrate.ts'
import type { DatabaseHandle } from '../compute-host/database/handle.ts'
import { sql } from '../db/drizzle-orm.ts'
import * as Sessions from '../runtime/sessions/index.ts'
import { createEmbeddedDatabase, createTestDatabase } from './support/database.ts'

const BEFORE = '0017_config_version'

/** The committed migrations up to and including `last`, as a folder of their own. */
async function migrationsUpTo(last: string): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'popagent-migrations-'))
  await cp(MIGRATIONS_FOLDER, folder, { recursive: true })
  const journalPath = join(folder, 'meta', '_journal.json')
  const journal = JSON.parse(await readFile(journalPath, 'utf8')) as {
    entries: { tag: string }[]
  }
  const end = journal.entries.findIndex((e) => e.tag === last)
  assert.ok(end >= 0, `${last} is not in the journal`)
  journal.entries = journal.entries.slice(0, end + 1)
  await writeFile(journalPath, JSON.stringify(journal))
  return folder
}

const message = (id: string, role: 'user' | 'assistant') => ({
  id,
  role,
  parts: [{ type: 'text', text: `text of ${id}`, nested: { kept: [1, 2, 3] } }],
})

const databases: [string, () => Promise<{ handle: DatabaseHandle; close: () => Promise<void> }>][] =
  [
    [
      'PostgreSQL',
      async () => {
        const created = await createTestDatabase({ migrate: false })
        return { handle: created.handle, close: created.drop }
      },
    ],
    [
      'embedded',
      async () => {
        const embedded = await createEmbeddedDatabase({ migrate: false })
        return { handle: embedded.handle, close: embedded.close }
      },
    ],
  ]

for (const [name, open] of databases) {
  describe(`migration 0018, session messages (${name})`, () => {
    let handle: DatabaseHandle
    let close: () => Promise<void>
    let older: string
    before(async () => {
      ;({ handle, close } = await open())
      older = await migrationsUpTo(BEFORE)
    })
    after(async () => {
      await close()
      await rm(older, { recursive: true, force: true })
    })

    test('moves every message into its own row, in order, and the session goes on from there', async () => {
      await migrateDatabase(handle, older)
      const db = handle.db
      const shapes = {
        ses_00000000000000000000000001: [],
        ses_00000000000000000000000002: [message('u1', 'user'), message('a1', 'assistant')],
        ses_00000000000000000000000003: ['u1', 'a1', 'u2', 'a2', 'u3'].map((id) =>
          message(id, id.startsWith('u') ? 'user' : 'assistant'),
        ),
      }
      for (const [id, messages] of Object.entries(shapes)) {
        await db.execute(sql`
          insert into popagent_sessions (id, workspace_id, title, messages, revision)
          values (${id}, 'wsp_default', 'Old', ${JSON.stringify(messages)}::jsonb, 3)`)
      }
      await migrateDatabase(handle)
      for (const [id, messages] of Object.entries(shapes)) {
        const session = await Sessions.get(db, id)
        assert.deepEqual(session?.messages, messages, `${id}'s messages`)
        assert.equal(session?.messageCount, messages.length)
        assert.equal(session?.revision, 3)
      }
      const id = 'ses_00000000000000000000000003'
      const added = await Sessions.appendTurn(db, id, [
        message('u4', 'user'),
        message('a4', 'assistant'),
      ])
      assert.equal(added.messageCount, 7)
      assert.deepEqual(
        (await Sessions.get(db, id))?.messages.map((m) => m.id),
        ['u1', 'a1', 'u2', 'a2', 'u3', 'u4', 'a4'],
      )
    })
  })
}
