/**
 * Contract of every /api route, enumerated from the router itself so a new route cannot slip
 * past: auth when POPAGENT_API_KEY is set, and 4xx in the one error shape for bad input.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { app } from '../handlers/app.ts'
import { createTestApp, json } from './support/app.ts'
import { createTestDatabase, type TestDatabase } from './support/database.ts'
import { errorJson, typedClient, type WireError } from './support/typed-client.ts'

const API_KEY = 'test-api-key-0123456789abcdef'

/** Every concrete API route: method and path with its parameters filled with well-formed ids. */
function apiRoutes() {
  const seen = new Set<string>()
  return app.routes
    .filter((r) => r.method !== 'ALL' && r.path.startsWith('/api/'))
    .map((r) => ({
      method: r.method,
      path: r.path.replace(/\/$/, '').replace(/:id\b/g, 'ses_00000000000000000000000000'),
    }))
    .filter((r) => !seen.has(`${r.method} ${r.path}`) && seen.add(`${r.method} ${r.path}`))
}

function assertErrorShape(body: WireError, code?: string) {
  assert.equal(typeof body?.error?.code, 'string', `error code in ${JSON.stringify(body)}`)
  assert.equal(typeof body.error.message, 'string')
  assert.ok(!JSON.stringify(body).includes('    at '), 'no stack trace on the wire')
  if (code) assert.equal(body.error.code, code)
}

describe('the API contract', () => {
  let database: TestDatabase
  let request: (path: string, init?: RequestInit) => Promise<Response>
  let requestNoAuth: (path: string, init?: RequestInit) => Promise<Response>
  let withKey: ReturnType<typeof createTestApp>
  before(async () => {
    database = await createTestDatabase()
    withKey = createTestApp({ db: database.db, apiKey: API_KEY, maxBodyBytes: 64 * 1024 })
    const withoutKey = createTestApp({ db: database.db, maxBodyBytes: 64 * 1024 })
    request = async (path, init = {}) => withKey.request(path, init)
    requestNoAuth = async (path, init = {}) => withoutKey.request(path, init)
  })
  after(() => database.drop())

  test('the router exposes the routes this test knows how to reach', () => {
    const routes = apiRoutes().map((r) => `${r.method} ${r.path}`)
    assert.ok(routes.includes('GET /api/health'))
    assert.ok(routes.includes('PUT /api/sessions/ses_00000000000000000000000000'))
    assert.ok(routes.length >= 7, routes.join(', '))
  })

  test('with POPAGENT_API_KEY set, every /api route rejects a missing and a wrong key', async () => {
    for (const route of [...apiRoutes(), { method: 'GET', path: '/api/no-such-route' }]) {
      for (const headers of [
        {} as Record<string, string>,
        { 'x-popagent-key': 'wrong-key-0123456789abcdef' },
        { 'x-popagent-key': '' },
      ]) {
        const res = await request(route.path, { method: route.method, headers })
        assert.equal(
          res.status,
          401,
          `${route.method} ${route.path} with ${JSON.stringify(headers)}`,
        )
        assertErrorShape(await res.json(), 'UNAUTHORIZED')
      }
    }
  })

  test('the right key is accepted and the public UI needs none', async () => {
    const res = await typedClient(withKey, { apiKey: API_KEY }).api.sessions.$get({ query: {} })
    assert.equal(res.status, 200)
    const page = await request('/')
    assert.equal(page.status, 200)
    assert.match(await page.text(), /popagent/)
  })

  test('wrong types, unknown fields and bad queries get 400 with field errors', async () => {
    const cases: [string, RequestInit, string][] = [
      ['/api/sessions', json({ title: 5 }, { method: 'POST' }), 'title'],
      ['/api/sessions', json({ title: 'x', bogus: true }, { method: 'POST' }), 'bogus'],
      [
        '/api/sessions',
        json({ workspaceId: 'ses_00000000000000000000000000' }, { method: 'POST' }),
        'workspaceId',
      ],
      ['/api/sessions?limit=abc', {}, 'limit'],
      ['/api/sessions?status=deleted', {}, 'status'],
      ['/api/sessions?sneaky=1', {}, 'sneaky'],
      [
        '/api/sessions/ses_00000000000000000000000000',
        json({ revision: -1, messages: [] }, { method: 'PUT' }),
        'revision',
      ],
      [
        '/api/sessions/ses_00000000000000000000000000',
        json({ revision: 0, messages: [{ id: 'm' }] }, { method: 'PUT' }),
        'messages.0.role',
      ],
      ['/api/sessions/ses_00000000000000000000000000', json({}, { method: 'PATCH' }), '(root)'],
    ]
    for (const [path, init, field] of cases) {
      const res = await requestNoAuth(path, init)
      const body: WireError = await res.json()
      assert.equal(res.status, 400, `${init.method ?? 'GET'} ${path}: ${JSON.stringify(body)}`)
      assertErrorShape(body, 'VALIDATION_FAILED')
      assert.ok(
        body.error.data?.fields?.[field],
        `${path} names ${field}: ${JSON.stringify(body.error.data)}`,
      )
    }
  })

  test('malformed ids get 400, never a database error', async () => {
    for (const id of [
      'nope',
      'wsp_default',
      'ses_',
      "ses_' or 1=1 --",
      'ses_%2e%2e%2fetc',
      'x'.repeat(500),
    ]) {
      for (const method of ['GET', 'DELETE']) {
        const res = await requestNoAuth(`/api/sessions/${encodeURIComponent(id)}`, { method })
        assert.equal(res.status, 400, `${method} ${id}`)
        assertErrorShape(await res.json(), 'VALIDATION_FAILED')
      }
    }
  })

  test('oversized, malformed, deeply nested and non-JSON bodies get a 4xx in the error shape', async () => {
    const big = JSON.stringify({ title: 'x'.repeat(70 * 1024) })
    const cases: [RequestInit, number][] = [
      [{ method: 'POST', headers: { 'content-type': 'application/json' }, body: big }, 413],
      [
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title": ' },
        400,
      ],
      [{ method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' }, 415],
      [
        {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'title=x',
        },
        415,
      ],
      [
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '['.repeat(5000) + ']'.repeat(5000),
        },
        400,
      ],
      [
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '"just a string"',
        },
        400,
      ],
      [
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ title: '\u0000' }),
        },
        400,
      ],
      [
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ title: 'ok \ud800 ☃' }),
        },
        400,
      ],
    ]
    for (const [init, status] of cases) {
      const res = await requestNoAuth('/api/sessions', init)
      const body = await res.json()
      assert.equal(
        res.status,
        status,
        `${String(init.body).slice(0, 40)} → ${JSON.stringify(body).slice(0, 200)}`,
      )
      if (status >= 400) assertErrorShape(body)
    }
  })

  test('a chunked body over the limit is refused while it streams', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(16 * 1024))
    let sent = 0
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 10) controller.enqueue(chunk)
        else controller.close()
      },
    })
    const res = await requestNoAuth('/api/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit)
    assert.equal(res.status, 413)
    assertErrorShape(await res.json(), 'PAYLOAD_TOO_LARGE')
  })

  test('unknown routes and methods answer 404 in the error shape', async () => {
    for (const [method, path] of [
      ['GET', '/api/nothing'],
      ['POST', '/api/health'],
      ['PATCH', '/api/sessions'],
    ]) {
      const res = await requestNoAuth(path!, { method })
      assert.equal(res.status, 404, `${method} ${path}`)
      assertErrorShape(await res.json(), 'ROUTE_NOT_FOUND')
    }
  })

  test('a database outage is a 503 with a request id, not a stack trace', async () => {
    const broken = await createTestDatabase()
    const brokenApp = createTestApp({ db: broken.db })
    await broken.drop()
    const res = await brokenApp.request('/api/sessions')
    const body = await errorJson(res)
    assert.ok(res.status === 503 || res.status === 500, `status ${res.status}`)
    assertErrorShape(body)
    assert.equal(typeof body.error.data?.requestId, 'string')
    assert.equal(res.headers.get('x-request-id'), body.error.data?.requestId)
  })
})
