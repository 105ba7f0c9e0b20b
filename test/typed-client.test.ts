/**
 * The UI and the CLI talk to the API through `hc<AppType>`. This test is also a type test: it
 * only compiles (`npm run typecheck`) while the routes' inputs and their 200/201/404/409 bodies
 * stay visible in AppType.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { hc } from 'hono/client'
import type { AppType } from '../handlers/app.ts'
import { createTestApp } from './support/app.ts'
import { createTestDatabase, type TestDatabase } from './support/database.ts'

let database: TestDatabase
let client: ReturnType<typeof hc<AppType>>
before(async () => {
  database = await createTestDatabase()
  const app = createTestApp({ db: database.db })
  // A loopback name: the edge answers only names it knows (handlers/middleware/allowed-hosts.ts).
  client = hc<AppType>('http://localhost', {
    fetch: (input: RequestInfo | URL, init?: RequestInit) => app.request(input, init),
  })
})
after(() => database.drop())

test('the typed client creates, saves and narrows a conflict to the current session', async () => {
  const created = await client.api.sessions.$post({ json: { title: 'typed' } })
  assert.equal(created.status, 201)
  if (created.status !== 201) return
  const session = await created.json()
  const id = session.id

  const saved = await client.api.sessions[':id'].$put({
    param: { id },
    json: { revision: 0, messages: [] },
  })
  assert.equal(saved.status, 200)

  const stale = await client.api.sessions[':id'].$put({
    param: { id },
    json: { revision: 0, messages: [] },
  })
  assert.equal(stale.status, 409)
  if (stale.status === 409) {
    const body = await stale.json()
    assert.equal(body.session.revision, 1)
    assert.equal(body.error.code, 'REVISION_CONFLICT')
  }

  const missing = await client.api.sessions[':id'].$get({
    param: { id: 'ses_00000000000000000000000000' },
  })
  assert.equal(missing.status, 404)

  const list = await client.api.sessions.$get({ query: { status: 'active' } })
  if (list.status === 200) assert.ok((await list.json()).sessions.some((s) => s.id === id))
})
