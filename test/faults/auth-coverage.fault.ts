/**
 * Authentication coverage, enumerated from the routers: every /api route of the edge (every
 * method the router knows, and in full mode every method on every path) refuses a request
 * without the right x-popagent-key — missing, wrong, off by one character, in another case, in
 * the query string, as a bearer token… — with 401 in the one error shape, except the routes
 * listed in public-routes.json as public (none today); the routes it lists as signed by their
 * sender refuse every unsigned request with 401, the right key included. Every route of the compute host's internal API refuses the same
 * near misses of its token. The last test shows the check catches a route added outside auth.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { Hono } from 'hono'
import { app } from '../../handlers/app.ts'
import { parseEdgeConfig } from '../../handlers/config.ts'
import { createNodeEdgeApp } from '../../handlers/entry.node.ts'
import type { AppEnv } from '../../handlers/env.ts'
import { startTestStack, type TestStack } from '../support/stack.ts'
import { faultMode, recordFigures, sized } from './mode.ts'
import {
  findUnauthenticated,
  wrongCredentials,
  type Probe,
  type Send,
} from './support/http/auth-probe.ts'
import { createFixtures, paramsFor, type Fixtures } from './support/http/fixtures.ts'
import { send } from './support/http/raw-http.ts'
import { fillPath, routesOf, type Route } from './support/http/routes.ts'

// Mixed case and a final letter, so the "other case" and "last char" variants really differ.
const API_KEY = 'Fault-Auth-Key-0123456789-abcDEF'
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD']

type Listed = { method: string; path: string; why: string }
const listed = JSON.parse(
  readFileSync(new URL('./public-routes.json', import.meta.url), 'utf8'),
) as { public: Listed[]; signedBySender: Listed[]; keptBehindAuth: Listed[] }
const isPublic = (r: { method: string; path: string }) =>
  listed.public.some((p) => p.method === r.method && p.path === r.path)
/** Routes that take the sender's signature instead of the key: the key opens nothing there. */
const isSigned = (r: { method: string; path: string }) =>
  listed.signedBySender.some((p) => p.method === r.method && p.path === r.path)

/**
 * The edge's /api routes as both routers see them: the shared app and the Node wrapper that
 * serves it (a route added to the wrapper, before the shared app, would sit outside its auth).
 */
function edgeApiRoutes(stack: TestStack): Route[] {
  const wrapper = createNodeEdgeApp({
    config: parseEdgeConfig({ POPAGENT_HOST_TOKEN: stack.host.token }),
    db: stack.host.resources.databases.application.db,
    observabilityDb: stack.host.resources.databases.observability.db,
  })
  const seen = new Map<string, Route>()
  for (const r of [...routesOf(app, '/api'), ...routesOf(wrapper, '/api')])
    seen.set(`${r.method} ${r.path}`, r)
  return [...seen.values()]
}

/** What each route is called with: its own method, and in full mode every method. */
function probesFor(routes: Route[], fixtures: Fixtures): Probe[] {
  const probes = new Map<string, Probe>()
  const add = (method: string, path: string) => probes.set(`${method} ${path}`, { method, path })
  for (const r of routes.filter((r) => !isPublic(r))) {
    const path = fillPath(r.path, paramsFor(r.path, r.method, fixtures))
    for (const method of sized([r.method], METHODS)) add(method, path)
  }
  for (const method of sized(['GET', 'POST'], METHODS)) {
    add(method, '/api')
    add(method, '/api/')
    add(method, '/api/no-such-route')
  }
  return [...probes.values()]
}

const socket =
  (base: string): Send =>
  (req) =>
    send(base, req)

const describeMisses = (
  misses: { method: string; path: string; credential: string; status: number; body: string }[],
) =>
  misses
    .slice(0, 30)
    .map((m) => `${m.method} ${m.path} (${m.credential}): ${m.status} ${m.body}`)
    .join('\n')

describe(`auth coverage (${faultMode})`, () => {
  let stack: TestStack
  let url: string
  let fixtures: Fixtures
  const figures: Record<string, unknown> = {}

  before(async () => {
    stack = await startTestStack()
    stack.gateway.respondWith(() => ({ text: 'ok' }))
    url = await stack.listen({ apiKey: API_KEY })
    fixtures = await createFixtures(url, { 'x-popagent-key': API_KEY })
  })
  after(async () => {
    await stack?.stop()
    await recordFigures('auth-coverage', figures)
  })

  test('public-routes.json names only routes that exist, each with a why', () => {
    const routes = edgeApiRoutes(stack)
    for (const entry of [...listed.public, ...listed.signedBySender, ...listed.keptBehindAuth]) {
      assert.ok(entry.why?.trim().length > 20, `${entry.method} ${entry.path} needs a why`)
      assert.ok(
        routes.some((r) => r.method === entry.method && r.path === entry.path),
        `stale entry: ${entry.method} ${entry.path} is not a route`,
      )
    }
    figures.publicRoutes = listed.public.length
  })

  test('every edge /api route refuses every near miss of the key with 401', async () => {
    const routes = edgeApiRoutes(stack)
    assert.ok(routes.length >= 30, `${routes.length} routes`)
    const probes = probesFor(routes, fixtures)
    const credentials = wrongCredentials('x-popagent-key', API_KEY)
    const { requests, misses } = await findUnauthenticated(socket(url), probes, credentials)
    Object.assign(figures, {
      edgeRoutes: routes.length,
      edgeProbes: probes.length,
      credentialVariants: credentials.length,
      edgeRequests: requests,
      edgeMisses: misses.length,
    })
    assert.equal(misses.length, 0, describeMisses(misses))
  })

  test('the right key gets through to every edge route, and public routes need none', async () => {
    // Without this the 401s above could come from a broken server rather than from auth.
    let requests = 0
    for (const r of edgeApiRoutes(stack)) {
      const path = fillPath(r.path, paramsFor(r.path, r.method, fixtures))
      const hasBody = r.method !== 'GET' && r.method !== 'DELETE'
      const withKey = await send(url, {
        method: r.method,
        path,
        headers: {
          'x-popagent-key': API_KEY,
          ...(hasBody && { 'content-type': 'application/json' }),
        },
        ...(hasBody && { body: '{}' }),
      })
      requests++
      if (isSigned(r)) {
        // An unsigned event is refused although it carries the owner's key.
        assert.equal(withKey.status, 401, `signed ${r.method} ${path} with the key only`)
        continue
      }
      assert.notEqual(withKey.status, 401, `${r.method} ${path} with the key: ${withKey.text}`)
      if (isPublic(r)) {
        const without = await send(url, { method: r.method, path })
        requests++
        assert.notEqual(without.status, 401, `public ${r.method} ${path}`)
      }
    }
    figures.keyedRequests = requests
  })

  test('every compute host route refuses every near miss of the host token with 401', async () => {
    const { createReadyHostApp } = await import('../../compute-host/host-handlers.ts')
    const routes = routesOf(createReadyHostApp(stack.host.resources, stack.host.token))
    assert.ok(routes.length >= 8, `${routes.length} host routes`)
    const probes: Probe[] = []
    for (const r of routes)
      for (const method of sized([r.method], METHODS)) probes.push({ method, path: r.path })
    probes.push({ method: 'GET', path: '/internal/no-such-route' }, { method: 'GET', path: '/' })
    const credentials = wrongCredentials('authorization', stack.host.token, 'Bearer ')
    const { requests, misses } = await findUnauthenticated(
      socket(stack.host.url),
      probes,
      credentials,
    )
    // And the right token gets through, so the 401s are the token check's.
    for (const r of routes) {
      const res = await send(stack.host.url, {
        method: r.method,
        path: r.path,
        headers: {
          authorization: `Bearer ${stack.host.token}`,
          'content-type': 'application/json',
        },
        ...(r.method === 'POST' && { body: '{}' }),
      })
      assert.notEqual(res.status, 401, `${r.method} ${r.path} with the token`)
    }
    Object.assign(figures, {
      hostRoutes: routes.length,
      hostProbes: probes.length,
      hostRequests: requests,
      hostMisses: misses.length,
    })
    assert.equal(misses.length, 0, describeMisses(misses))
  })

  test('the check catches a route added outside the key check', async () => {
    // A wrapper that registers a route before mounting the shared app, as entry.node.ts could.
    const config = parseEdgeConfig({
      POPAGENT_HOST_TOKEN: stack.host.token,
      POPAGENT_API_KEY: API_KEY,
    })
    const leaky = new Hono<AppEnv>()
      .use(async (c, next) => (c.set('config', config), next()))
      .get('/api/leak', (c) => c.json({ leaked: true }))
      .route('/', app)
    // Signed routes need the application database to look their channel up, which this bare
    // wrapper has none of; the test above holds them to 401.
    const probes = routesOf(leaky, '/api')
      .filter((r) => !isSigned(r))
      .map((r) => ({ method: r.method, path: fillPath(r.path) }))
    const inProcess: Send = async (req) => {
      const headers = Object.entries(req.headers ?? {}).map(([k, v]): [string, string] => [
        k,
        String(v),
      ])
      const res = await leaky.request(req.path, { method: req.method, headers })
      return { status: res.status, text: await res.text(), headers: {} }
    }
    const { misses } = await findUnauthenticated(
      inProcess,
      probes,
      wrongCredentials('x-popagent-key', API_KEY),
    )
    assert.ok(misses.length > 0)
    assert.deepEqual([...new Set(misses.map((m) => `${m.method} ${m.path}`))], ['GET /api/leak'])
  })
})
