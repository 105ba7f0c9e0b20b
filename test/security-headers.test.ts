/**
 * Every answer of the Node edge carries the security headers — the UI, its assets, /api
 * successes and every refusal (401, 403, 404, 413, 421) — and /api answers are not cached. A
 * handler that builds its own Response (as the chat stream does) gets them too. The Workers
 * assets' `_headers` file says the same, and is not itself served.
 */
import assert from 'node:assert/strict'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { serve, type ServerType } from '@hono/node-server'
import { Hono } from 'hono'
import { parseEdgeConfig } from '../handlers/config.ts'
import { startNodeEdge, UI_ROOT, type NodeEdge } from '../handlers/entry.node.ts'
import type { AppEnv } from '../handlers/env.ts'
import { SECURITY_HEADERS, securityHeaders } from '../handlers/middleware/security-headers.ts'
import { TEST_HOST_TOKEN } from './support/app.ts'
import { createTestDatabase, type TestDatabase } from './support/database.ts'
import { send, type RawResponse } from './faults/support/http/raw-http.ts'

const API_KEY = 'security-headers-key-0123456789'

function assertHeaders(res: RawResponse, what: string, api: boolean) {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    assert.equal(res.headers[name], value, `${what}: ${name}`)
  }
  if (api) assert.equal(res.headers['cache-control'], 'no-store', `${what}: cache-control`)
}

describe('security headers', () => {
  let database: TestDatabase
  let edge: NodeEdge
  let asset: string

  before(async () => {
    database = await createTestDatabase()
    edge = await startNodeEdge({
      config: parseEdgeConfig({
        POPAGENT_HOST_URL: 'http://127.0.0.1:9',
        POPAGENT_HOST_TOKEN: TEST_HOST_TOKEN,
        POPAGENT_API_KEY: API_KEY,
        POPAGENT_MAX_BODY_BYTES: '1024',
      }),
      db: database.db,
      observabilityDb: database.db,
      port: 0,
    })
    const files = await readdir(join(UI_ROOT, 'assets'))
    asset = `/assets/${files.find((f) => f.endsWith('.js'))}`
  })
  after(async () => {
    await edge?.close()
    await database?.drop()
  })

  test('the policy is the one the issue asks for, or stricter', () => {
    const csp = SECURITY_HEADERS['content-security-policy']!
    assert.match(csp, /^default-src 'self';/)
    assert.match(csp, /frame-ancestors 'none'/)
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/)
  })

  test('the UI, its assets, /api answers and every refusal carry them', async () => {
    const key = { 'x-popagent-key': API_KEY }
    const json = { ...key, 'content-type': 'application/json' }
    const cases: [string, Parameters<typeof send>[1], number, boolean][] = [
      ['UI', { method: 'GET', path: '/' }, 200, false],
      ['single-page fallback', { method: 'GET', path: '/tasks/x' }, 200, false],
      ['asset', { method: 'GET', path: asset }, 200, false],
      ['api', { method: 'GET', path: '/api/sessions', headers: key }, 200, true],
      [
        'api created',
        { method: 'POST', path: '/api/sessions', headers: json, body: '{}' },
        201,
        true,
      ],
      ['no key', { method: 'GET', path: '/api/sessions' }, 401, true],
      ['no route', { method: 'GET', path: '/api/no-such', headers: key }, 404, true],
      [
        'too large',
        { method: 'POST', path: '/api/sessions', headers: json, body: 'x'.repeat(2048) },
        413,
        true,
      ],
      [
        'cross-site',
        { method: 'POST', path: '/api/sessions', headers: { ...json, origin: 'http://a.test' } },
        403,
        true,
      ],
      [
        'foreign host',
        { method: 'GET', path: '/', headers: { host: 'attacker.test' } },
        421,
        false,
      ],
      [
        'foreign host on api',
        { method: 'GET', path: '/api/sessions', headers: { host: 'attacker.test' } },
        421,
        true,
      ],
    ]
    for (const [what, request, status, api] of cases) {
      const res = await send(edge.url, request)
      assert.equal(res.status, status, `${what}: ${res.text.slice(0, 200)}`)
      assertHeaders(res, what, api)
    }
  })

  test('the UI page loads nothing inline that the policy would block', async () => {
    const html = await readFile(join(UI_ROOT, 'index.html'), 'utf8')
    for (const script of html.match(/<script\b[^>]*>/g) ?? []) assert.match(script, /\ssrc="\//)
    assert.doesNotMatch(html, /<style\b|\sstyle=|\son[a-z]+=/i)
  })

  test('_headers for the Workers assets matches, and the Node edge does not serve it', async () => {
    const text = await readFile(join(import.meta.dirname, '..', 'ui', 'public', '_headers'), 'utf8')
    const lines = text.split('\n').filter((l) => l.startsWith('  '))
    const declared = Object.fromEntries(
      lines.map((l) => {
        const at = l.indexOf(':')
        return [l.slice(0, at).trim().toLowerCase(), l.slice(at + 1).trim()]
      }),
    )
    assert.deepEqual(declared, SECURITY_HEADERS)
    const served = await send(edge.url, { method: 'GET', path: '/_headers' })
    assert.doesNotMatch(served.text, /Content-Security-Policy/)
  })

  test('a handler that returns its own Response gets them, even with immutable headers', async () => {
    const config = parseEdgeConfig({ POPAGENT_HOST_TOKEN: TEST_HOST_TOKEN })
    const app = new Hono<AppEnv>()
      .use(async (c, next) => (c.set('config', config), next()))
      .use(securityHeaders)
      .get('/api/stream', () => {
        const body = new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('data: 1\n\n'))
            controller.close()
          },
        })
        return new Response(body, {
          headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
        })
      })
      .get('/api/redirect', () => Response.redirect('http://127.0.0.1/elsewhere', 302))
      .get('/page', () => new Response('<p>hi</p>', { headers: { 'content-type': 'text/html' } }))
    const server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s))
    })
    try {
      const address = server.address()
      const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
      const stream = await send(url, { method: 'GET', path: '/api/stream' })
      assert.equal(stream.text, 'data: 1\n\n')
      assert.equal(stream.headers['content-type'], 'text/event-stream')
      assertHeaders(stream, 'stream', true)
      const redirect = await send(url, { method: 'GET', path: '/api/redirect' })
      assert.equal(redirect.status, 302)
      assert.equal(redirect.headers.location, 'http://127.0.0.1/elsewhere')
      assertHeaders(redirect, 'redirect', true)
      assertHeaders(await send(url, { method: 'GET', path: '/page' }), 'page', false)
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
