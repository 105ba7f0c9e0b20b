/**
 * The edge answers only the names it is addressed by and refuses other sites' writes, over real
 * sockets: loopback Host names (and the public names in POPAGENT_ALLOWED_HOSTS) reach the UI and
 * /api; any other Host — a rebound attacker's name, `127.0.0.1.attacker.test`, an absolute-form
 * target — gets 421 on every path; state-changing /api requests carrying a foreign Origin or
 * `Sec-Fetch-Site: cross-site` get 403, body-less POSTs included, while reads and requests
 * without an Origin (the CLI) pass.
 */
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { parseEdgeConfig } from '../handlers/config.ts'
import { startNodeEdge, type NodeEdge } from '../handlers/entry.node.ts'
import { hostAllowed, isLoopbackAddress, LOOPBACK_HOSTS } from '../handlers/host-allowlist.ts'
import { TEST_HOST_TOKEN } from './support/app.ts'
import { createTestDatabase, type TestDatabase } from './support/database.ts'
import { send, type RawResponse } from './faults/support/http/raw-http.ts'

const API_KEY = 'edge-origin-api-key-0123456789'
const NO_TASK = 'tsk_00000000000000000000000000'

/** Sends raw bytes and returns everything the server wrote before closing. */
function rawExchange(url: string, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1', () =>
      socket.end(request.replace(/\r\n\r\n$/, '\r\nConnection: close\r\n\r\n')),
    )
    let answer = ''
    socket.on('data', (d) => (answer += d))
    socket.on('end', () => resolve(answer))
    socket.on('error', reject)
  })
}

function assertRefused(res: RawResponse, status: number, code: string, what: string) {
  assert.equal(res.status, status, `${what}: ${res.status} ${res.text.slice(0, 200)}`)
  assert.equal(JSON.parse(res.text).error.code, code, what)
}

describe('Host allowlist and same-origin writes', () => {
  let database: TestDatabase
  let edge: NodeEdge
  let keyed: NodeEdge
  let port: string
  let own: string

  before(async () => {
    database = await createTestDatabase()
    const config = (extra: Record<string, string> = {}) =>
      parseEdgeConfig({
        POPAGENT_HOST_URL: 'http://127.0.0.1:9',
        POPAGENT_HOST_TOKEN: TEST_HOST_TOKEN,
        POPAGENT_ALLOWED_HOSTS: 'Agent.Example.test, ported.example.test:8443',
        ...extra,
      })
    const dbs = { db: database.db, observabilityDb: database.db }
    edge = await startNodeEdge({ config: config(), ...dbs, port: 0 })
    keyed = await startNodeEdge({ config: config({ POPAGENT_API_KEY: API_KEY }), ...dbs, port: 0 })
    port = new URL(edge.url).port
    own = `http://127.0.0.1:${port}`
  })
  after(async () => {
    await edge?.close()
    await keyed?.close()
    await database?.drop()
  })

  const get = (path: string, host: string, headers: Record<string, string> = {}) =>
    send(edge.url, { method: 'GET', path, headers: { host, ...headers } })

  test('loopback names, with or without a port, and the configured public names are answered', async () => {
    const allowed = [
      'localhost',
      `localhost:${port}`,
      `LOCALHOST:${port}`,
      '127.0.0.1',
      `127.0.0.1:${port}`,
      '[::1]',
      `[::1]:${port}`,
      'agent.example.test',
      'agent.example.test:443',
      'ported.example.test:8443',
    ]
    for (const host of allowed) {
      const api = await get('/api/sessions', host)
      assert.equal(api.status, 200, `${host}: ${api.text.slice(0, 200)}`)
      const ui = await get('/', host)
      assert.equal(ui.status, 200, `${host} /`)
      assert.match(ui.text, /<div id="root">/)
    }
  })

  test('any other Host gets 421 in the error shape on every path, with the key or without', async () => {
    const refused = [
      `attacker.test:${port}`,
      'attacker.test',
      `127.0.0.1.attacker.test:${port}`,
      `localhost.attacker.test:${port}`,
      `agent.example.test.attacker.test`,
      `localhost.:${port}`,
      `ported.example.test:9000`,
      `ported.example.test`,
      `0.0.0.0:${port}`,
      `127.0.0.2:${port}`,
    ]
    const paths = ['/', '/index.html', '/#/tasks', '/tasks', '/api/sessions', '/api/no-such']
    for (const host of refused) {
      for (const path of paths) {
        assertRefused(await get(path, host), 421, 'HOST_NOT_ALLOWED', `${host} ${path}`)
      }
      const withKey = await send(keyed.url, {
        method: 'POST',
        path: '/api/sessions',
        headers: { host, 'x-popagent-key': API_KEY, 'content-type': 'application/json' },
        body: '{}',
      })
      assertRefused(withKey, 421, 'HOST_NOT_ALLOWED', `${host} with the key`)
    }
    // Host values that are not a host at all never reach the app: the HTTP layer answers 400.
    for (const host of [`user@127.0.0.1:${port}`, `127.0.0.1:${port}/x`]) {
      assert.equal((await get('/api/sessions', host)).status, 400, host)
    }
    // An empty Host (node:http's client would fill it in, so raw bytes), and absolute-form
    // targets whose URL or Host names another server.
    const empty = await rawExchange(edge.url, 'GET /api/sessions HTTP/1.1\r\nHost: \r\n\r\n')
    assert.match(empty, /^HTTP\/1\.1 (400|421) /, empty)
    const missing = await rawExchange(edge.url, 'GET /api/sessions HTTP/1.1\r\n\r\n')
    assert.match(missing, /^HTTP\/1\.1 400 /, missing)
    const absolute = await get(`${own}/api/sessions`, 'attacker.test')
    assertRefused(absolute, 421, 'HOST_NOT_ALLOWED', 'absolute target, foreign Host')
    const foreignTarget = await get('http://attacker.test/api/sessions', `127.0.0.1:${port}`)
    assertRefused(foreignTarget, 421, 'HOST_NOT_ALLOWED', 'foreign absolute target')
  })

  test('state-changing requests from another site are refused with 403, body-less POSTs too', async () => {
    const writes = [
      { method: 'POST', path: '/api/sessions', body: '{}' },
      { method: 'PUT', path: '/api/sessions/ses_00000000000000000000000000', body: '{}' },
      { method: 'PATCH', path: '/api/settings/memory', body: '{}' },
      { method: 'DELETE', path: '/api/sessions/ses_00000000000000000000000000' },
      { method: 'POST', path: `/api/tasks/${NO_TASK}/cancel` },
    ]
    const foreign: Record<string, string>[] = [
      { origin: `http://attacker.test:${port}` },
      { origin: 'http://attacker.test' },
      { origin: `http://127.0.0.1.attacker.test:${port}` },
      { origin: `http://127.0.0.1:${Number(port) + 1}` },
      { origin: `http://localhost:${port}` }, // another name for this server is another origin
      { origin: 'null' },
      { origin: 'not a url' },
      { origin: `${own}/path` },
      { 'sec-fetch-site': 'cross-site' },
      { origin: own, 'sec-fetch-site': 'cross-site' },
    ]
    for (const write of writes) {
      for (const extra of foreign) {
        for (const url of [edge.url, keyed.url]) {
          const host = `127.0.0.1:${new URL(url).port}`
          const origin = extra.origin?.replace(`:${port}`, `:${new URL(url).port}`)
          const res = await send(url, {
            ...write,
            headers: {
              host,
              ...extra,
              ...(origin && { origin }),
              'x-popagent-key': API_KEY,
              ...(write.body && { 'content-type': 'application/json' }),
            },
          })
          assertRefused(
            res,
            403,
            'CROSS_SITE_REQUEST',
            `${write.method} ${write.path} ${JSON.stringify(extra)}`,
          )
        }
      }
    }
  })

  test('same-origin writes, writes without an Origin and cross-site reads reach the routes', async () => {
    const post = (headers: Record<string, string>, host = `127.0.0.1:${port}`) =>
      send(edge.url, {
        method: 'POST',
        path: '/api/sessions',
        headers: { host, 'content-type': 'application/json', ...headers },
        body: '{}',
      })
    assert.equal((await post({ origin: own })).status, 201)
    assert.equal((await post({ origin: own, 'sec-fetch-site': 'same-origin' })).status, 201)
    assert.equal((await post({})).status, 201, 'the CLI and curl send no Origin')
    assert.equal((await post({ 'sec-fetch-site': 'none' })).status, 201)
    // Behind a TLS proxy the browser's origin is https while the edge sees http.
    const proxied = await post({ origin: 'https://agent.example.test' }, 'agent.example.test')
    assert.equal(proxied.status, 201)
    const ported = await post(
      { origin: 'https://ported.example.test:8443' },
      'ported.example.test:8443',
    )
    assert.equal(ported.status, 201)
    // A body-less POST from this origin reaches its route (404: no such task).
    const cancel = await send(edge.url, {
      method: 'POST',
      path: `/api/tasks/${NO_TASK}/cancel`,
      headers: { host: `127.0.0.1:${port}`, origin: own },
    })
    assert.equal(cancel.status, 404, cancel.text)

    // Reads with a foreign Origin are answered when the Host is allowed (CORS keeps the answer
    // from the other site's script), and refused when it is not.
    const read = await get('/api/sessions', `127.0.0.1:${port}`, {
      origin: 'http://attacker.test',
      'sec-fetch-site': 'cross-site',
    })
    assert.equal(read.status, 200)
    assert.equal(read.headers['access-control-allow-origin'], undefined)
    const rebound = await get('/api/sessions', `attacker.test:${port}`, {
      origin: `http://attacker.test:${port}`,
    })
    assertRefused(rebound, 421, 'HOST_NOT_ALLOWED', 'rebound read')
  })

  test('the allowlist helpers match exact names and know loopback binds', () => {
    assert.equal(hostAllowed('127.0.0.1:3000', LOOPBACK_HOSTS), true)
    assert.equal(hostAllowed('127.0.0.1.nip.io:3000', LOOPBACK_HOSTS), false)
    assert.equal(hostAllowed('localhost:3000:3000', LOOPBACK_HOSTS), false)
    assert.equal(hostAllowed('[::1]', LOOPBACK_HOSTS), true)
    assert.equal(hostAllowed('anything.test', 'any'), true)
    for (const a of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1'])
      assert.equal(isLoopbackAddress(a), true, a)
    for (const a of ['0.0.0.0', '::', '', '192.168.1.5', '127.0.0.1.nip.io', 'example.com'])
      assert.equal(isLoopbackAddress(a), false, a)
  })
})

describe('the Workers entry', () => {
  let database: TestDatabase
  // The real Workers entry, called as the runtime calls it (its fetch with bindings and context).
  const call = async (url: string, bindings: Record<string, unknown>, init: RequestInit = {}) => {
    const worker = (await import('../handlers/entry.worker.ts')).default
    const waits: Promise<unknown>[] = []
    const ctx = { waitUntil: (p: Promise<unknown>) => waits.push(p), passThroughOnException() {} }
    const res = await worker.fetch(new Request(url, init), bindings, ctx as never)
    const body = await res.text()
    await Promise.all(waits)
    return { status: res.status, headers: res.headers, body }
  }
  let env: Record<string, unknown>

  before(async () => {
    database = await createTestDatabase()
    env = {
      POPAGENT_HOST_TOKEN: TEST_HOST_TOKEN,
      DATABASE_URL: database.url,
      OBSERVABILITY_DATABASE_URL: database.url,
    }
  })
  after(() => database?.drop())

  test('without the POPAGENT_API_KEY secret, /api is closed with a 503 that says how to set it', async () => {
    for (const bindings of [env, { ...env, POPAGENT_API_KEY: '' }]) {
      const res = await call('https://popagent.example.workers.dev/api/sessions', { ...bindings })
      assert.equal(res.status, 503, res.body)
      const error = JSON.parse(res.body).error
      assert.equal(error.code, 'API_KEY_NOT_CONFIGURED')
      assert.match(error.message, /wrangler secret put POPAGENT_API_KEY/)
      assert.equal(res.headers.get('x-frame-options'), 'DENY')
    }
  })

  test('with the key, the Worker answers its own public name without a host list', async () => {
    const bindings = { ...env, POPAGENT_API_KEY: API_KEY }
    const url = 'https://popagent.example.workers.dev/api/sessions'
    assert.equal((await call(url, bindings)).status, 401)
    const ok = await call(url, bindings, { headers: { 'x-popagent-key': API_KEY } })
    assert.equal(ok.status, 200, ok.body)
    assert.equal(ok.headers.get('cache-control'), 'no-store')
    const crossSite = await call(url, bindings, {
      method: 'POST',
      headers: {
        'x-popagent-key': API_KEY,
        origin: 'https://attacker.test',
        'content-type': 'application/json',
      },
      body: '{}',
    })
    assert.equal(crossSite.status, 403)
    const sameSite = await call(url, bindings, {
      method: 'POST',
      headers: {
        'x-popagent-key': API_KEY,
        origin: 'https://popagent.example.workers.dev',
        'content-type': 'application/json',
      },
      body: '{}',
    })
    assert.equal(sameSite.status, 201, sameSite.body)
  })

  test('with POPAGENT_ALLOWED_HOSTS, the Worker answers only those names', async () => {
    const bindings = {
      ...env,
      POPAGENT_API_KEY: API_KEY,
      POPAGENT_ALLOWED_HOSTS: 'agent.example.test',
    }
    const headers = { 'x-popagent-key': API_KEY }
    const listed = await call('https://agent.example.test/api/sessions', bindings, { headers })
    assert.equal(listed.status, 200, listed.body)
    const other = await call('https://popagent.example.workers.dev/api/sessions', bindings, {
      headers,
    })
    assert.equal(other.status, 421)
    assert.equal(JSON.parse(other.body).error.code, 'HOST_NOT_ALLOWED')
  })
})
