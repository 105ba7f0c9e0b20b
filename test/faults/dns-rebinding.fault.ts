/**
 * DNS rebinding and cross-site requests against a real `popagent start`, run as an owner would
 * on a fresh data directory with no POPAGENT_API_KEY. The test plays the attacker's page:
 *
 * - rebinding: the page's own name now resolves to 127.0.0.1, so the browser sends requests it
 *   believes same-origin, with `Host: attacker.test:PORT` (and `Origin`/`Sec-Fetch-Site` to
 *   match). Every route the routers know, and the UI, must answer 421 — with or without the key;
 * - cross-site writes: a page elsewhere posts to 127.0.0.1 with its own Origin, `Origin: null`
 *   or `Sec-Fetch-Site: cross-site` — every state-changing route, body-less POSTs included, must
 *   answer 403 and change nothing, even when the request somehow carries the key;
 * - no key: every /api route refuses a request without the generated key (401).
 *
 * Also: the key file is private (0600), its path is printed but (stdout being no terminal) no
 * sign-in link, and the key is in no output line; the Node edge refuses to bind off loopback
 * without a key; an HTTP hook cannot be stored aimed at loopback without `allowLoopback`, or at
 * a private, link-local or metadata address at all. Controls with the right Host and Origin
 * reach the routes, so the refusals are the checks', not a broken server.
 * All traffic stays on loopback.
 */
import assert from 'node:assert/strict'
import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { app } from '../../handlers/app.ts'
import { parseEdgeConfig } from '../../handlers/config.ts'
import { createNodeEdgeApp, startNodeEdge, UI_ROOT } from '../../handlers/entry.node.ts'
import { startFreshPopagent, type FreshPopagent, type RunningCli } from '../support/process.ts'
import { faultMode, recordFigures, sized } from './mode.ts'
import { createFixtures, paramsFor, type Fixtures } from './support/http/fixtures.ts'
import { send, type RawResponse } from './support/http/raw-http.ts'
import { fillPath, routesOf, type Route } from './support/http/routes.ts'

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD']
const WRITES = ['POST', 'PUT', 'PATCH', 'DELETE']
const TOKEN = 'dns-rebinding-host-token-0123456789'

type Probe = { method: string; path: string }
type Miss = Probe & { variant: string; status: number; body: string }

/** Every route of the edge as the shared app and the Node wrapper register it. */
function edgeRoutes(): Route[] {
  const wrapper = createNodeEdgeApp({
    config: parseEdgeConfig({ POPAGENT_HOST_TOKEN: TOKEN }),
    db: {} as never,
    observabilityDb: {} as never,
  })
  const seen = new Map<string, Route>()
  for (const r of [...routesOf(app, '/api'), ...routesOf(wrapper, '/api')])
    seen.set(`${r.method} ${r.path}`, r)
  return [...seen.values()]
}

const refusedWith = (res: RawResponse, method: string, status: number, code: string) =>
  res.status === status && (method === 'HEAD' || JSON.parse(res.text || '{}')?.error?.code === code)

const describeMisses = (misses: Miss[]) =>
  misses
    .slice(0, 30)
    .map((m) => `${m.method} ${m.path} (${m.variant}): ${m.status} ${m.body}`)
    .join('\n')

describe(`DNS rebinding and cross-site requests (${faultMode})`, () => {
  let dataDir: string
  let popagent: FreshPopagent | undefined
  let cli: RunningCli
  let url: string
  let port: string
  let key: string
  let fixtures: Fixtures
  let probes: Probe[]
  const figures: Record<string, unknown> = {}
  const withBody = (method: string, path: string) =>
    method !== 'GET' && method !== 'HEAD' && method !== 'DELETE' && !path.endsWith('/cancel')

  before(async () => {
    popagent = await startFreshPopagent('fault-rebinding')
    ;({ cli, dataDir, key } = popagent)
    url = cli.url
    port = new URL(url).port
    fixtures = await createFixtures(url, { 'x-popagent-key': key })
    const ui = (await readdir(join(UI_ROOT, 'assets'))).find((f) => f.endsWith('.js'))
    const byKey = new Map<string, Probe>()
    const add = (method: string, path: string) => byKey.set(`${method} ${path}`, { method, path })
    for (const r of edgeRoutes()) {
      const path = fillPath(r.path, paramsFor(r.path, r.method, fixtures))
      for (const method of sized([r.method], METHODS)) add(method, path)
    }
    for (const path of ['/', '/index.html', `/assets/${ui}`, '/tasks', '/api', '/api/no-such'])
      for (const method of sized(['GET'], METHODS)) add(method, path)
    probes = [...byKey.values()]
  })
  after(async () => {
    figures.exitCode = await popagent?.dispose()
    await recordFigures('dns-rebinding', figures)
  })

  test('the first start generates a private key, names its file (no link off a terminal), and logs no key', async () => {
    const mode = ((await stat(join(dataDir, 'api-key'))).mode & 0o777).toString(8).padStart(4, '0')
    figures.keyFileMode = mode
    assert.equal(mode, '0600')
    assert.match(key, /^[A-Za-z0-9_-]{43}$/)
    // stdout is a pipe, as under a service manager: the key file is named, the key never shown.
    assert.ok(cli.output().includes(`the API key is in ${dataDir}/api-key`), cli.output())
    assert.doesNotMatch(cli.output(), /#key=/)
    figures.keyInOutput = cli.output().includes(key)
    assert.equal(figures.keyInOutput, false)
    const logLines = cli
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
    figures.keyInLogLines = logLines.filter((l) => l.includes(key)).length
    assert.ok(logLines.length > 0)
    assert.equal(figures.keyInLogLines, 0)
  })

  test('rebinding: every route and the UI refuse a foreign Host with 421, key or no key', async () => {
    const names = sized(
      [`attacker.test:${port}`, `127.0.0.1.attacker.test:${port}`],
      [
        `attacker.test:${port}`,
        'attacker.test',
        `127.0.0.1.attacker.test:${port}`,
        `localhost.attacker.test:${port}`,
        `rebind.127.0.0.1.nip.io:${port}`,
        `ATTACKER.TEST:${port}`,
        `localhost.:${port}`,
      ],
    )
    const misses: Miss[] = []
    let requests = 0
    let controls = 0
    for (const probe of probes) {
      const body = withBody(probe.method, probe.path)
      const json: Record<string, string> = body ? { 'content-type': 'application/json' } : {}
      for (const host of names) {
        for (const credential of [{}, { 'x-popagent-key': key }] as Record<string, string>[]) {
          // What the rebound page's browser sends: it believes this is its own origin.
          const origin = `http://${host}`
          const res = await send(url, {
            method: probe.method,
            path: probe.path,
            headers: { host, origin, 'sec-fetch-site': 'same-origin', ...credential, ...json },
            ...(body && { body: '{}' }),
          })
          requests++
          if (!refusedWith(res, probe.method, 421, 'HOST_NOT_ALLOWED'))
            misses.push({
              ...probe,
              variant: `${host}${'x-popagent-key' in credential ? ' with key' : ''}`,
              status: res.status,
              body: res.text.slice(0, 200),
            })
        }
      }
      // Control: addressed to 127.0.0.1, the same request is not a 421 (without the key, so the
      // control changes nothing: /api answers 401, the UI 200).
      const control = await send(url, {
        method: probe.method,
        path: probe.path,
        headers: json,
        ...(body && { body: '{}' }),
      })
      assert.notEqual(control.status, 421, `control ${probe.method} ${probe.path}`)
      controls++
    }
    Object.assign(figures, {
      probes: probes.length,
      rebindingHosts: names.length,
      rebindingRefused: `${requests - misses.length}/${requests}`,
      rebindingControls: controls,
    })
    assert.equal(misses.length, 0, describeMisses(misses))
  })

  test('cross-site: every state-changing route refuses a foreign Origin with 403 and changes nothing', async () => {
    const sessionsBefore = await listSessions()
    const writes = probes.filter((p) => WRITES.includes(p.method) && p.path.startsWith('/api'))
    assert.ok(
      writes.some((w) => w.method === 'POST' && w.path.endsWith('/cancel')),
      'a body-less POST is among the writes',
    )
    const variants: [string, Record<string, string>][] = sized(
      [
        ['foreign origin', { origin: 'http://attacker.test' }],
        ['sec-fetch-site cross-site', { 'sec-fetch-site': 'cross-site' }],
      ],
      [
        ['foreign origin', { origin: 'http://attacker.test' }],
        ['foreign origin, same port', { origin: `http://attacker.test:${port}` }],
        ['look-alike origin', { origin: `http://127.0.0.1.attacker.test:${port}` }],
        ['other local port', { origin: `http://127.0.0.1:${Number(port) + 1}` }],
        ['opaque origin', { origin: 'null' }],
        ['sec-fetch-site cross-site', { 'sec-fetch-site': 'cross-site' }],
        [
          'own origin but cross-site',
          { origin: `http://127.0.0.1:${port}`, 'sec-fetch-site': 'cross-site' },
        ],
      ],
    )
    const misses: Miss[] = []
    let requests = 0
    for (const probe of writes) {
      const body = withBody(probe.method, probe.path)
      for (const [label, headers] of variants) {
        // With the key even: the refusal must not depend on the attacker lacking it.
        const res = await send(url, {
          method: probe.method,
          path: probe.path,
          headers: {
            ...headers,
            'x-popagent-key': key,
            ...(body && { 'content-type': 'application/json' }),
          },
          ...(body && { body: '{}' }),
        })
        requests++
        if (!refusedWith(res, probe.method, 403, 'CROSS_SITE_REQUEST'))
          misses.push({
            ...probe,
            variant: label,
            status: res.status,
            body: res.text.slice(0, 200),
          })
      }
    }
    Object.assign(figures, {
      writeProbes: writes.length,
      crossSiteVariants: variants.length,
      crossSiteRefused: `${requests - misses.length}/${requests}`,
    })
    assert.equal(misses.length, 0, describeMisses(misses))

    // Nothing changed: the same sessions, the fixture task not cancelled.
    assert.deepEqual(await listSessions(), sessionsBefore)
    const task = await send(url, {
      method: 'GET',
      path: `/api/tasks/${fixtures.task}`,
      headers: { 'x-popagent-key': key },
    })
    assert.equal(task.status, 200, task.text)
    assert.doesNotMatch(JSON.parse(task.text).state, /cancel/)

    // Control: from its own origin, the body-less cancel reaches its route.
    const own = await send(url, {
      method: 'POST',
      path: `/api/tasks/${fixtures.task}/cancel`,
      headers: { origin: `http://127.0.0.1:${port}`, 'x-popagent-key': key },
    })
    assert.notEqual(own.status, 403, own.text)
  })

  test('no key: every /api route refuses a request without the generated key', async () => {
    const api = probes.filter((p) => p.path.startsWith('/api'))
    const misses: Miss[] = []
    for (const probe of api) {
      const res = await send(url, { method: probe.method, path: probe.path })
      if (!refusedWith(res, probe.method, 401, 'UNAUTHORIZED'))
        misses.push({ ...probe, variant: 'no key', status: res.status, body: res.text })
    }
    figures.noKeyRefused = `${api.length - misses.length}/${api.length}`
    assert.equal(misses.length, 0, describeMisses(misses))
  })

  test('the Node edge refuses to bind off loopback without a key, before listening', async () => {
    const open = parseEdgeConfig({ POPAGENT_HOST_TOKEN: TOKEN })
    const refusals: string[] = []
    for (const hostname of ['0.0.0.0', '::']) {
      await assert.rejects(
        startNodeEdge({
          config: open,
          db: {} as never,
          observabilityDb: {} as never,
          port: 0,
          hostname,
        }),
        (error: Error) => {
          refusals.push(hostname)
          return /not a loopback address and no API key is configured/.test(error.message)
        },
      )
    }
    figures.nonLoopbackBindWithoutKey = `refused ${refusals.length}/2`
  })

  test('an HTTP hook cannot be aimed at loopback without consent, or ever at a private or metadata address', async () => {
    const post = (body: Record<string, unknown>) =>
      send(url, {
        method: 'POST',
        path: '/api/hooks',
        headers: { 'x-popagent-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'ssrf',
          event: 'PreToolUse',
          kind: 'http',
          enabled: false,
          ...body,
        }),
      })
    const targets = sized(
      ['https://127.0.0.2:8443/', 'https://169.254.169.254/', 'https://0x7f.1/'],
      [
        'https://127.0.0.2:8443/',
        'https://[::1]/',
        'https://[::ffff:127.0.0.1]/',
        'https://2130706433/',
        'https://0x7f.1/',
        'https://localhost/',
        'https://169.254.169.254/latest/meta-data/',
        'https://[::ffff:169.254.169.254]/',
        'https://[fd00:ec2::254]/',
        'https://100.100.100.200/',
        'https://10.0.0.1/',
        'https://192.168.0.1/',
        'https://0.0.0.0/',
        'https://[::]/',
      ],
    )
    const misses: string[] = []
    for (const target of targets) {
      // Loopback consent never stretches to anything else: only loopback literals need it.
      for (const allowLoopback of [false, true]) {
        const res = await post({ url: target, allowLoopback })
        const loopbackAllowed =
          allowLoopback && /127\.|\[::1\]|7f00|2130706433|0x7f|localhost/.test(target)
        const ok = loopbackAllowed
          ? res.status === 201
          : res.status === 422 && JSON.parse(res.text).error.code === 'HOOK_INVALID'
        if (!ok) misses.push(`${target} allowLoopback=${allowLoopback}: ${res.status} ${res.text}`)
      }
    }
    figures.hookUrlsJudged = `${targets.length * 2 - misses.length}/${targets.length * 2}`
    assert.deepEqual(misses, [])
  })

  async function listSessions() {
    const res = await send(url, {
      method: 'GET',
      path: '/api/sessions',
      headers: { 'x-popagent-key': key },
    })
    return JSON.parse(res.text)
  }
})
