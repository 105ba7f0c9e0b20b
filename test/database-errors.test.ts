/**
 * What the edge does with a statement PostgreSQL refuses: a number past its column's range is the
 * request's fault (400), and any failed statement is logged without its bound parameters, which
 * are request data (drizzle puts them all in its error message).
 */
import assert from 'node:assert/strict'
import { sql } from '../db/drizzle-orm.ts'
import { after, before, describe, test } from 'node:test'
import { createTestApp } from './support/app.ts'
import { createTestDatabase, type TestDatabase } from './support/database.ts'
import { errorJson, okJson, typedClient } from './support/typed-client.ts'

const CANARY = 'param-canary-7f3a91c2e8'

/** Runs `fn` and returns what it wrote through console.error and console.warn (the edge's log). */
async function edgeLines(fn: () => Promise<void>): Promise<string[]> {
  const lines: string[] = []
  const original = { error: console.error, warn: console.warn }
  console.error = (...args: unknown[]) => void lines.push(args.map(String).join(' '))
  console.warn = (...args: unknown[]) => void lines.push(args.map(String).join(' '))
  try {
    await fn()
  } finally {
    Object.assign(console, original)
  }
  return lines
}

describe('database errors at the edge', () => {
  let database: TestDatabase
  let app: ReturnType<typeof createTestApp>
  before(async () => {
    database = await createTestDatabase()
    app = createTestApp({ db: database.db })
  })
  after(() => database.drop())

  const sessions = () => typedClient(app).api.sessions
  const newSession = async () => (await okJson(await sessions().$post({ json: {} }), 201)).id
  const save = (id: string, revision: number) =>
    sessions()[':id'].$put({
      param: { id },
      json: {
        revision,
        title: `title ${CANARY}`,
        messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: CANARY }] }],
      },
    })
  type SaveResponse = Awaited<ReturnType<typeof save>>

  test('a statement whose number overflows int4 (SQLSTATE 22003) is a 400, not a 500', async () => {
    const id = await newSession()
    // A session saved 2³¹−1 times: its next save would need revision 2³¹.
    await database.db.execute(
      sql`update popagent_sessions set revision = 2147483647 where id = ${id}`,
    )
    let res: SaveResponse | undefined
    const lines = await edgeLines(async () => {
      res = await save(id, 2_147_483_647)
    })
    const body = await errorJson(res!, 400)
    assert.equal(body.error.code, 'NUMBER_OUT_OF_RANGE')
    assert.ok(!JSON.stringify(body).includes(CANARY))
    assert.deepEqual(lines, [])
  })

  test('a failed statement is logged with its SQLSTATE and never with its parameters', async () => {
    const id = await newSession()
    // A fault PostgreSQL itself raises on the save's UPDATE, as an unexpected error would.
    await database.db.execute(
      sql.raw(`
      create function popagent_test_refuse() returns trigger language plpgsql as $$
      begin raise exception 'scripted refusal' using errcode = 'P0001'; end $$;
      create trigger popagent_test_refuse before update on popagent_sessions
        for each row execute function popagent_test_refuse();`),
    )
    try {
      let res: SaveResponse | undefined
      const lines = await edgeLines(async () => {
        res = await save(id, 0)
      })
      const body = await errorJson(res!, 500)
      assert.equal(body.error.code, 'INTERNAL')
      const logged = lines.join('\n')
      assert.equal(lines.length, 1, logged)
      const line = JSON.parse(lines[0]!)
      assert.equal(line.level, 'error')
      assert.equal(line.sqlState, 'P0001')
      assert.equal(line.message, 'scripted refusal')
      assert.equal(line.requestId, body.error.data?.requestId)
      assert.ok(!logged.includes(CANARY), `a parameter reached the log: ${logged}`)
      assert.ok(!logged.includes('params:'), logged)
    } finally {
      await database.db.execute(
        sql.raw(`
        drop trigger popagent_test_refuse on popagent_sessions;
        drop function popagent_test_refuse();`),
      )
    }
  })
})
