/**
 * Bad inputs against every route of the edge and of the compute host, over real sockets to a
 * real stack: inputs derived from each route's zod schemas (found by walking the routers, see
 * support/http/routes.ts), plus malformed, oversized, deeply nested, badly encoded and wrongly
 * typed requests. Nothing may answer 5xx, crash the process or log an error; every refusal is a
 * 4xx in the one error shape.
 *
 * Short mode sends a seeded sample per route and category (the seed is printed; set
 * POPAGENT_FAULT_SEED to replay it); full mode sends every generated request.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { BODYLESS } from '../../handlers/openapi/coverage.ts'
import { startTestStack, type TestStack } from '../support/stack.ts'
import { waitFor } from '../support/until.ts'
import { faultMode, recordFigures, sized } from './mode.ts'
import { casesFor, type Case } from './support/http/cases.ts'
import { failureOf, judge, statusClass, type Failure } from './support/http/check-answer.ts'
import { createFixtures, paramsFor, type Fixtures } from './support/http/fixtures.ts'
import { watchProcess, type ProcessWatch } from './support/http/process-watch.ts'
import { inParallel, send } from './support/http/raw-http.ts'
import { edgeRoutes, hostRoutes } from './support/http/routes.ts'
import { sampleCases } from './support/http/sample.ts'
import type { Known } from './support/http/schema-inputs.ts'

const API_KEY = 'fault-bad-inputs-key-0123456789'
const MAX_BODY_BYTES = 4 * 1024 * 1024 // the edge's default (handlers/config.ts)
const SEED = Number(process.env.POPAGENT_FAULT_SEED ?? Math.floor(Math.random() * 2 ** 31))
// In short mode: how many cases per route and category, and how many routes get the large bodies.
const PER_GROUP = { schema: 6, other: 2 }
const OVERSIZED_ROUTES = 3

/**
 * Where generated bodies start: real ids and a model the gateway lists, so a valid-looking chat
 * request reaches a real session, Mastra and the gateway, and its mutations get that far too.
 */
const known = (f: Fixtures): Known => ({
  candidates: [f.session, f.task, f.schedule, f.skill],
  hints: {
    model: 'test/model',
    configuredModel: 'test/model',
    localModel: 'test/model',
    freeCodingModel: 'test/model',
    modelOverride: null,
    role: 'user',
    // An object, as the UI sends; the mutations also try other types, which get a 400.
    metadata: {},
    cron: '0 0 1 1 *',
  },
})

type Run = {
  routes: number
  requests: number
  byStatus: Record<string, number>
  failures: Failure[]
}

async function runCases(base: string, cases: Case[]): Promise<Run> {
  const run: Run = {
    routes: new Set(cases.map((c) => c.route)).size,
    requests: 0,
    byStatus: {},
    failures: [],
  }
  await inParallel(cases, 6, async (c) => {
    run.requests++
    try {
      const res = await send(base, c.request)
      const cls = statusClass(res.status)
      run.byStatus[cls] = (run.byStatus[cls] ?? 0) + 1
      const verdict = judge(res)
      if (!verdict.ok) run.failures.push(failureOf(c, verdict.problem, res.text))
    } catch (error) {
      run.byStatus.none = (run.byStatus.none ?? 0) + 1
      run.failures.push(failureOf(c, `no answer: ${(error as Error).message}`))
    }
  })
  return run
}

const describeFailures = (failures: Failure[]) =>
  failures
    .slice(0, 25)
    .map((f) => `${f.route} [${f.category}] ${f.label}: ${f.problem} ${f.body}`)
    .join('\n')

describe(`bad inputs (${faultMode})`, () => {
  let stack: TestStack
  let url: string
  let watch: ProcessWatch
  let fixtures: Fixtures
  const runs: Record<string, Run> = {}
  // The error lines the fuzzing caused, before the known-bug repros below add theirs.
  let fuzzErrorLines: string[] = []

  before(async () => {
    watch = watchProcess()
    // A vault key, as a real deployment on PostgreSQL must have (without one every secrets route
    // is a deliberate 503), and the observability store ready, so a 5xx here is a real one.
    stack = await startTestStack({
      hostEnv: { POPAGENT_SECRET_KEY: randomBytes(32).toString('base64') },
    })
    await waitFor(
      () => stack.host.resources.observability.health().storageReady || undefined,
      30_000,
      'the observability store',
    )
    // Valid-looking requests may start turns and tasks: the gateway finishes each at once.
    stack.gateway.respondWith(() => ({ text: 'ok' }))
    url = await stack.listen({ apiKey: API_KEY })
    fixtures = await createFixtures(url, { 'x-popagent-key': API_KEY })
    console.log(`bad inputs: seed ${SEED} (POPAGENT_FAULT_SEED=${SEED} replays it)`)
  })
  after(async () => {
    await stack?.stop()
    watch?.stop()
    const all = Object.values(runs)
    const byStatus: Record<string, number> = {}
    for (const r of all)
      for (const [k, v] of Object.entries(r.byStatus)) byStatus[k] = (byStatus[k] ?? 0) + v
    await recordFigures('bad-inputs', {
      seed: SEED,
      routes: Object.fromEntries(Object.entries(runs).map(([k, r]) => [k, r.routes])),
      requests: all.reduce((n, r) => n + r.requests, 0),
      byStatus,
      '5xx': byStatus['5xx'] ?? 0,
      failures: all.reduce((n, r) => n + r.failures.length, 0),
      unhandled: watch?.unhandled.length ?? 0,
      errorLogLines: watch?.errorLines(stack?.logs).length ?? 0,
    })
  })

  test('the routers expose routes and schemas to fuzz', () => {
    const routes = edgeRoutes()
    assert.ok(routes.length >= 30, `${routes.length} edge routes`)
    const withBody = routes.filter((r) => r.inputs.json)
    assert.ok(withBody.length >= 15, `${withBody.length} edge routes with a JSON schema`)
    assert.ok(routes.some((r) => r.inputs.query) && routes.some((r) => r.inputs.param))
    // Every route that reads a body validates it: a JSON route without `validate('json', …)`
    // would read unchecked input.
    for (const r of routes.filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method))) {
      const bodyless = r.path.endsWith('/cancel') || BODYLESS[`${r.method} ${r.path}`]
      assert.ok(bodyless || r.inputs.json, `${r.method} ${r.path} has no JSON schema`)
    }
  })

  test('edge: no 5xx, no crash, every refusal a 4xx in the error shape', async () => {
    const routes = edgeRoutes()
    let cases = routes.flatMap((r) =>
      casesFor(r, {
        auth: { 'x-popagent-key': API_KEY },
        params: paramsFor(r.path, r.method, fixtures),
        maxBodyBytes: MAX_BODY_BYTES,
        known: known(fixtures),
      }),
    )
    cases = sized(sampleCases(cases, SEED, PER_GROUP, OVERSIZED_ROUTES), cases)
    const run = (runs.edge = await runCases(url, cases))
    console.log(
      `edge: ${run.requests} requests over ${run.routes} routes ${JSON.stringify(run.byStatus)}`,
    )
    assert.equal(run.failures.length, 0, describeFailures(run.failures))
  })

  test('host: the same, with the host token', async () => {
    const routes = hostRoutes(stack.host.resources, stack.host.token)
    let cases = routes.flatMap((r) =>
      casesFor(r, {
        auth: { authorization: `Bearer ${stack.host.token}` },
        params: {},
        maxBodyBytes: MAX_BODY_BYTES,
        known: known(fixtures),
      }),
    )
    cases = sized(sampleCases(cases, SEED, PER_GROUP, OVERSIZED_ROUTES), cases)
    const run = (runs.host = await runCases(stack.host.url, cases))
    console.log(
      `host: ${run.requests} requests over ${run.routes} routes ${JSON.stringify(run.byStatus)}`,
    )
    assert.equal(run.failures.length, 0, describeFailures(run.failures))
  })

  test('no unhandled rejection, uncaught exception or error-level log line', async () => {
    // Let work the requests started (turns, tasks) settle before judging the logs.
    await new Promise((r) => setTimeout(r, 500))
    assert.deepEqual(watch.unhandled, [])
    fuzzErrorLines = watch.errorLines(stack.logs)
    assert.deepEqual(
      fuzzErrorLines.map((l) => l.slice(0, 1_500)),
      [],
    )
  })

  // Minimal repros of two bugs this suite found (fixed in the chat contract): text PostgreSQL
  // cannot store, and metadata that is not an object. Each must be refused up front with a 400.
  const chat = async (message: Record<string, unknown>) => {
    const created = await send(url, {
      method: 'POST',
      path: '/api/sessions',
      headers: { 'x-popagent-key': API_KEY, 'content-type': 'application/json' },
      body: '{}',
    })
    const sessionId = (JSON.parse(created.text) as { id: string }).id
    const body = { sessionId, workspaceId: 'wsp_default', model: 'test/model', message }
    return send(url, {
      method: 'POST',
      path: '/api/chat',
      headers: { 'x-popagent-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  }
  test('chat refuses a NUL or a lone surrogate before the turn starts', async () => {
    for (const id of ['a\u0000b', '\ud800']) {
      const res = await chat({ id, role: 'user', parts: [{ type: 'text', text: 'hi' }] })
      assert.equal(res.status, 400, res.text.slice(0, 200))
    }
    const part = await chat({ id: 'm', role: 'user', parts: [{ type: 'text', text: 'x\udc00' }] })
    assert.equal(part.status, 400, part.text.slice(0, 200))
  })

  test('chat refuses message metadata that is not an object', async () => {
    // Observation has to run in the turn: a low threshold and a long message.
    const patch = await send(url, {
      method: 'PATCH',
      path: '/api/settings/memory',
      headers: { 'x-popagent-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ observationMessageTokens: 1_000 }),
    })
    assert.equal(patch.status, 200, patch.text)
    const text = 'word '.repeat(1_500)
    const res = await chat({
      id: 'm1',
      role: 'user',
      parts: [{ type: 'text', text }],
      metadata: 'a',
    })
    assert.equal(res.status, 400, res.text.slice(0, 200))
  })
})
