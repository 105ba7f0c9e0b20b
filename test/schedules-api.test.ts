/**
 * /api/schedules through the edge with a real compute host (which checks every cron expression),
 * and the `popagent schedules` verb against the served edge.
 */
import assert from 'node:assert/strict'
import { Cron } from 'croner'
import { eq } from '../db/drizzle-orm.ts'
import { after, before, describe, test } from 'node:test'
import { createLogger } from '../compute-host/log.ts'
import { previewCron, serverTimezone } from '../compute-host/schedules/cron.ts'
import { createScheduler } from '../compute-host/schedules/scheduler.ts'
import { schedules, tasks } from '../db/schema/index.ts'
import * as Schedules from '../runtime/schedules/index.ts'
import type { CreateScheduleInput } from '../runtime/contracts/schedules.ts'
import { createTestApp, json } from './support/app.ts'
import { runCli } from './support/process.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { errorJson, okJson, typedClient } from './support/typed-client.ts'

// Weekly crons: nothing here should come due while the file runs, whoever drives the scheduler.
const WEEKLY = '0 9 * * 1'
const API_KEY = 'schedules-api-key-0123456789'

describe('schedules API', () => {
  let stack: TestStack
  before(async () => {
    stack = await startTestStack()
  })
  after(() => stack.stop())

  // A fresh client each time: a restarted host is a new edge's host.
  const api = () => typedClient(stack.edge()).api.schedules
  const list = () => api().$get()
  const create = (body: CreateScheduleInput) => api().$post({ json: body })
  const patch = (
    id: string,
    body: Parameters<ReturnType<typeof api>[':id']['$patch']>[0]['json'],
  ) => api()[':id'].$patch({ param: { id }, json: body })
  const remove = (id: string) => api()[':id'].$delete({ param: { id } })
  // Bodies the contract refuses, which the typed client would not let through.
  const raw = (method: 'POST' | 'PATCH', path: string, body: Record<string, unknown>) =>
    stack.edge().request(`/api/schedules${path}`, json(body, { method }))
  const stored = () => stack.database.db.select().from(schedules)
  const valid: CreateScheduleInput = {
    workspaceId: 'wsp_default',
    name: 'weekly review',
    cron: WEEKLY,
    prompt: 'review',
  }

  test('a cron the host cannot read is a 400 that names the problem, and nothing is stored', async () => {
    const before = (await stored()).length
    for (const [cron, problem] of [
      ['61 * * * *', /minute: 61/],
      ['every day at nine', /five, six, or seven/],
      ['0 9 * * * *', /exactly 5 parts/],
      ['0 0 31 2 *', /never occurs/],
    ] as const) {
      const body = await errorJson(await create({ ...valid, cron }), 400)
      assert.equal(body.error.code, 'INVALID_CRON')
      assert.match(body.error.message, problem)
      assert.ok(body.error.message.includes(cron), 'the message quotes the expression')
    }
    assert.equal((await stored()).length, before)
  })

  test('create, list, patch and delete; edits keep maxAttempts; the timezone is the server’s', async () => {
    const made = await okJson(await create({ ...valid, maxAttempts: 4 }), 201)
    assert.match(made.id, /^sch_/)
    assert.equal(made.source, 'user')
    assert.equal(made.timezone, serverTimezone())
    assert.equal(made.maxAttempts, 4)
    assert.equal(made.catchUp, 'latest', 'the default catch-up')
    assert.equal(made.skippedCount, 0)
    assert.equal(made.nextRunAt, new Cron(WEEKLY, { mode: '5-part' }).nextRun()!.toISOString())

    const listed = await okJson(await list())
    const mine = listed.schedules.find((s) => s.id === made.id)
    assert.deepEqual(mine, made)

    const retimed = await okJson(await patch(made.id, { cron: '30 8 * * 2' }))
    assert.equal(retimed.cron, '30 8 * * 2')
    assert.equal(
      retimed.nextRunAt,
      new Cron('30 8 * * 2', { mode: '5-part' }).nextRun()!.toISOString(),
    )
    assert.equal(retimed.maxAttempts, 4, 'a cron change keeps maxAttempts')

    const withModel = await okJson(await patch(made.id, { model: 'test/model', maxAttempts: 2 }))
    assert.equal(withModel.model, 'test/model')
    assert.equal(withModel.maxAttempts, 2)
    assert.equal(withModel.nextRunAt, retimed.nextRunAt, 'other edits keep the next occurrence')
    const noModel = await okJson(await patch(made.id, { model: null }))
    assert.equal(noModel.model, null)
    const each = await okJson(await patch(made.id, { catchUp: 'each' }))
    assert.equal(each.catchUp, 'each')
    assert.equal(each.maxAttempts, 2, 'a catch-up change keeps the rest')
    const none = await okJson(await create({ ...valid, catchUp: 'none' }), 201)
    assert.equal(none.catchUp, 'none')
    for (const [method, path] of [
      ['POST', ''],
      ['PATCH', `/${made.id}`],
    ] as const) {
      const body = method === 'POST' ? { ...valid, catchUp: 'sometimes' } : { catchUp: 'sometimes' }
      const refused = await raw(method, path, body)
      assert.ok((await errorJson(refused, 400)).error.data?.fields?.catchUp, `${method} ${path}`)
    }

    const paused = await okJson(await patch(made.id, { enabled: false }))
    assert.equal(paused.enabled, false)
    assert.equal(paused.nextRunAt, null)

    const badCron = await patch(made.id, { cron: '* * *' })
    assert.equal(badCron.status, 400)
    const [row] = await stack.database.db.select().from(schedules).where(eq(schedules.id, made.id))
    assert.equal(row!.cron, '30 8 * * 2', 'a refused cron leaves the schedule as it was')

    assert.equal((await patch(made.id, {})).status, 400)
    const removed = await remove(made.id)
    assert.deepEqual(await removed.json(), { deleted: made.id })
    for (const res of [await remove(made.id), await patch(made.id, { name: 'x' })]) {
      assert.equal((await errorJson(res, 404)).error.code, 'SCHEDULE_NOT_FOUND')
    }
  })

  test('source, workspace and timezone are not writable', async () => {
    const before = (await stored()).length
    for (const [extra, field] of [
      [{ source: 'self-update' }, 'source'],
      [{ timezone: 'Europe/Berlin' }, 'timezone'],
      [{ utcOffset: 60 }, 'utcOffset'],
    ] as const) {
      const body = await errorJson(await raw('POST', '', { ...valid, ...extra }), 400)
      assert.ok(body.error.data?.fields?.[field], JSON.stringify(body.error.data))
    }
    assert.equal((await stored()).length, before)
    const made = await okJson(await create(valid))
    for (const extra of [
      { source: 'self-update' },
      { workspaceId: 'wsp_default' },
      { timezone: 'UTC' },
    ]) {
      const res = await raw('PATCH', `/${made.id}`, extra)
      assert.equal(res.status, 400, JSON.stringify(extra))
    }
  })

  test('an unknown workspace is a 404 and stores nothing', async () => {
    const before = (await stored()).length
    const res = await create({ ...valid, workspaceId: 'wsp_00000000000000000000000000' })
    assert.equal((await errorJson(res, 404)).error.code, 'WORKSPACE_NOT_FOUND')
    assert.equal((await stored()).length, before)
  })

  test('a system schedule can be retimed and paused, not rewritten or deleted', async () => {
    const system = await Schedules.create(stack.database.db, {
      ...valid,
      source: 'self-update',
      cron: Schedules.checkedCron(WEEKLY, previewCron(WEEKLY)),
    })
    assert.equal((await patch(system.id, { cron: '0 10 * * 1', enabled: false })).status, 200)
    const retimed = await okJson(await patch(system.id, { catchUp: 'none' }))
    assert.equal(retimed.catchUp, 'none', 'catch-up is about when, so a system schedule takes it')
    for (const res of [
      await patch(system.id, { prompt: 'something else' }),
      await remove(system.id),
    ]) {
      assert.equal((await errorJson(res, 409)).error.code, 'SCHEDULE_SYSTEM_OWNED')
    }
  })

  test('with the compute host down a create or cron change is a 503 that stores nothing; reads still work', async () => {
    const existing = await okJson(await create(valid))
    await stack.host.stop()
    try {
      // The stopped host closed its pools; this edge keeps its own, as a deployed edge would.
      const edge = typedClient(
        createTestApp({
          db: stack.database.db,
          hostUrl: stack.host.url,
          hostToken: stack.host.token,
        }),
      ).api.schedules
      const before = (await stored()).length
      const body = await errorJson(await edge.$post({ json: valid }), 503)
      assert.equal(body.error.code, 'COMPUTE_HOST_UNAVAILABLE')
      assert.match(body.error.message, /compute host is not reachable/)
      const retime = await edge[':id'].$patch({
        param: { id: existing.id },
        json: { cron: '0 7 * * 1' },
      })
      assert.equal(retime.status, 503)
      assert.equal((await stored()).length, before)

      const listed = await okJson(await edge.$get())
      assert.ok(listed.schedules.length > 0)
      assert.ok(listed.schedules.every((s) => s.timezone === null))
      const renamed = await edge[':id'].$patch({
        param: { id: existing.id },
        json: { name: 'renamed while the host was down' },
      })
      assert.equal((await okJson(renamed, 200)).cron, WEEKLY)
    } finally {
      await stack.restartHost()
    }
    assert.equal((await create(valid)).status, 201, 'and it works again once the host is back')
  })

  test('with an API key configured every schedules route needs it', async () => {
    const edge = stack.edge({ apiKey: API_KEY })
    const id = 'sch_00000000000000000000000000'
    const routes: [string, string, RequestInit][] = [
      ['GET', '/api/schedules', {}],
      ['POST', '/api/schedules', json(valid)],
      ['PATCH', `/api/schedules/${id}`, json({ name: 'x' })],
      ['DELETE', `/api/schedules/${id}`, {}],
      ['POST', `/api/schedules/${id}/run`, {}],
      ['GET', `/api/schedules/${id}/history`, {}],
    ]
    for (const [method, path, init] of routes) {
      const headers = (init.headers ?? {}) as Record<string, string>
      const without = await edge.request(path, { ...init, method })
      assert.equal(without.status, 401, `${method} ${path} without the key`)
      const wrong = await edge.request(path, {
        ...init,
        method,
        headers: { ...headers, 'x-popagent-key': 'wrong-key-0123456789abcdef' },
      })
      assert.equal(wrong.status, 401, `${method} ${path} with a wrong key`)
      const right = await edge.request(path, {
        ...init,
        method,
        headers: { ...headers, 'x-popagent-key': API_KEY },
      })
      assert.notEqual(right.status, 401, `${method} ${path} with the key`)
    }
  })

  test('`popagent schedules` lists what the API lists', async () => {
    const url = await stack.listen()
    const { schedules: listed } = await okJson(await list())
    assert.ok(listed.length > 0)
    const table = runCli(['schedules'], { POPAGENT_URL: url })
    assert.equal(await table.exited, 0, table.output())
    for (const s of listed) {
      const line = table
        .output()
        .split('\n')
        .find((l) => l.startsWith(s.id))
      assert.ok(line, `a line for ${s.id}`)
      assert.ok(line.includes(s.cron) && line.endsWith(s.name), line)
    }
    assert.match(table.output(), new RegExp(`timezone: ${serverTimezone()}`))
    const asJson = runCli(['schedules', '--json'], { POPAGENT_URL: url })
    assert.equal(await asJson.exited, 0, asJson.output())
    assert.deepEqual(JSON.parse(asJson.output()).schedules, listed)
    const unreachable = runCli(['schedules'], { POPAGENT_URL: 'http://127.0.0.1:9' })
    assert.equal(await unreachable.exited, 1)
    assert.match(unreachable.output(), /cannot reach popagent at http:\/\/127\.0\.0\.1:9/)

    // Against an edge with a key: the typed client sends POPAGENT_API_KEY, and a refusal says so.
    const keyed = await stack.listen({ apiKey: API_KEY })
    const withKey = runCli(['schedules', '--json'], {
      POPAGENT_URL: keyed,
      POPAGENT_API_KEY: API_KEY,
    })
    assert.equal(await withKey.exited, 0, withKey.output())
    assert.deepEqual(JSON.parse(withKey.output()).schedules, listed)
    const wrongKey = runCli(['schedules'], {
      POPAGENT_URL: keyed,
      POPAGENT_API_KEY: 'wrong-key-0123456789abcdef',
    })
    assert.equal(await wrongKey.exited, 1)
    assert.match(wrongKey.output(), /refused the API key: set POPAGENT_API_KEY/)
  })

  test('`popagent schedules history` prints the occurrences the API lists, fired and skipped', async () => {
    // Far in the future, so the stack's own scheduler (on the real clock) never finds it due;
    // the other tests' schedules are paused so that only this one is due on the test's clock.
    await stack.database.db.update(schedules).set({ enabled: false, nextRunAt: null })
    let now = new Date('2030-07-01T10:03:00Z')
    const cron = '*/15 * * * *'
    const schedule = await Schedules.create(stack.database.db, {
      ...valid,
      name: 'missed while down',
      cron: Schedules.checkedCron(cron, previewCron(cron, { now })),
      source: 'user',
    })
    const scheduler = createScheduler({
      db: stack.database.db,
      log: createLogger({ secrets: [], write: () => {} }),
      now: () => now,
    })
    now = new Date('2030-07-01T10:38:00Z')
    assert.equal(await scheduler.tick(), 1)
    const [task] = await stack.database.db
      .select({ id: tasks.id })
      .from(tasks)
      .where(eq(tasks.scheduleId, schedule.id))
    const url = await stack.listen()
    const printed = runCli(['schedules', 'history', schedule.id], { POPAGENT_URL: url })
    assert.equal(await printed.exited, 0, printed.output())
    assert.deepEqual(
      printed
        .output()
        .trim()
        .split('\n')
        .map((line) => line.split(/ {2,}/)),
      [
        ['OCCURRENCE', 'OUTCOME', 'TASK', 'REASON'],
        ['2030-07-01T10:30:00.000Z', 'fired', task!.id, '-'],
        ['2030-07-01T10:15:00.000Z', 'skipped', '-', 'missed: no host was running'],
      ],
    )
    const asJson = runCli(['schedules', 'history', schedule.id, '--json'], { POPAGENT_URL: url })
    assert.equal(await asJson.exited, 0, asJson.output())
    const fromApi = await okJson(
      await api()[':id'].history.$get({ param: { id: schedule.id }, query: {} }),
    )
    assert.deepEqual(JSON.parse(asJson.output()), fromApi)
    const listed = runCli(['schedules'], { POPAGENT_URL: url })
    assert.equal(await listed.exited, 0, listed.output())
    const row = listed
      .output()
      .split('\n')
      .find((l) => l.startsWith(schedule.id))
    assert.match(
      row ?? '',
      / latest {2,}1 {2,}/,
      'the list shows the catch-up and the skipped count',
    )

    const unknown = runCli(['schedules', 'history', 'sch_00000000000000000000000000'], {
      POPAGENT_URL: url,
    })
    assert.equal(await unknown.exited, 1)
    assert.match(unknown.output(), /schedule not found/)
    for (const args of [['history'], ['history', schedule.id, '--all'], ['histories']]) {
      const refused = runCli(['schedules', ...args], { POPAGENT_URL: url })
      assert.equal(await refused.exited, 2, args.join(' '))
      assert.match(refused.output(), /usage: popagent schedules/)
    }
  })
})
