/**
 * Every route that takes a model id checks it against the gateway's catalog through the one rule
 * in runtime/models/known-models.ts (the edge applies it for most routes, the host for a chat
 * turn): an id the catalog does not list is a 400 UNKNOWN_MODEL that names the field and stores
 * nothing, a listed id is accepted, and with no catalog to read the id is accepted and a warning
 * logged (fail-open, so a gateway outage never blocks the owner's work).
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { CreateScheduleInput } from '../runtime/contracts/schedules.ts'
import { userMessage } from './support/chat.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { errorJson, okJson, typedClient } from './support/typed-client.ts'

const KNOWN = 'remote/known'
const CATALOG = [{ id: KNOWN, contextWindow: 64_000 }]
const WEEKLY = '0 9 * * 1'
const task = { workspaceId: 'wsp_default', prompt: 'model check' }
// Disabled: nothing here should fire while the file runs.
const schedule: CreateScheduleInput = {
  workspaceId: 'wsp_default',
  name: 'checked',
  cron: WEEKLY,
  prompt: 'x',
  enabled: false,
}

/**
 * Runs `fn` and returns what it returned with the edge's warning lines (JSON, handlers/log.ts)
 * written meanwhile.
 */
async function edgeWarnings<T>(
  fn: () => Promise<T>,
): Promise<{ result: T; lines: Record<string, any>[] }> {
  const lines: string[] = []
  const original = console.warn
  console.warn = (...args: unknown[]) => void lines.push(args.map(String).join(' '))
  let result: T
  try {
    result = await fn()
  } finally {
    console.warn = original
  }
  return { result, lines: lines.map((line) => JSON.parse(line) as Record<string, any>) }
}

/** The routes that take a model id, through the typed client over `stack`'s edge. */
function routes(stack: () => TestStack) {
  const api = () => typedClient(stack().edge()).api
  return {
    api,
    createTask: (body: { model?: string }) => api().tasks.$post({ json: { ...task, ...body } }),
    createSchedule: (body: { model?: string }) =>
      api().schedules.$post({ json: { ...schedule, ...body } }),
    patchSchedule: (id: string, body: { model?: string | null; name?: string }) =>
      api().schedules[':id'].$patch({ param: { id }, json: body }),
  }
}

describe('model ids with the catalog up', () => {
  let stack: TestStack
  const { api, createTask, createSchedule, patchSchedule } = routes(() => stack)
  const countTasks = async () =>
    (await okJson(await api().tasks.$get({ query: { limit: '500' } }), 200)).tasks.length
  const listSchedules = async () => (await okJson(await api().schedules.$get(), 200)).schedules

  before(async () => {
    stack = await startTestStack({ models: CATALOG })
    // The tasks created here run; any answer will do.
    stack.gateway.respondWith(() => ({ text: 'ok' }))
  })
  after(() => stack.stop())

  async function assertRefused(res: Response, field: string, id: string) {
    const body = await errorJson(res, 400)
    assert.equal(body.error.code, 'UNKNOWN_MODEL')
    assert.ok(body.error.message.includes(`"${id}" (${field})`), body.error.message)
    assert.deepEqual(body.error.data?.models, [id])
    assert.deepEqual(Object.keys(body.error.data?.fields ?? {}), [field])
  }

  test('a task with an unknown model is refused naming the field, and nothing is stored', async () => {
    const before = await countTasks()
    await assertRefused(await createTask({ model: 'made-up/a' }), 'model', 'made-up/a')
    assert.equal(await countTasks(), before)
  })

  test('a task with a listed model, or none, is accepted', async () => {
    const known = await okJson(await createTask({ model: KNOWN }), 201)
    assert.equal(known.model, KNOWN)
    await okJson(await createTask({}), 201)
  })

  test('a schedule is created or edited only with a listed model', async () => {
    const before = (await listSchedules()).length
    await assertRefused(await createSchedule({ model: 'made-up/b' }), 'model', 'made-up/b')
    assert.equal((await listSchedules()).length, before)

    const made = await okJson(await createSchedule({ model: KNOWN }), 201)
    assert.equal(made.model, KNOWN)

    const patch = (body: { model?: string | null; name?: string }) => patchSchedule(made.id, body)
    await assertRefused(await patch({ model: 'made-up/c', name: 'renamed' }), 'model', 'made-up/c')
    const unchanged = (await listSchedules()).find((s) => s.id === made.id)
    assert.equal(unchanged?.model, KNOWN, 'a refused edit changes nothing')
    assert.equal(unchanged?.name, 'checked')
    await okJson(await patch({ model: null }), 200) // dropping the model needs no check
    const back = await okJson(await patch({ model: KNOWN }), 200)
    assert.equal(back.model, KNOWN)
  })

  test('a chat turn with an unknown model is refused before its run starts', async () => {
    // The tasks created above may still be running on the host and calling the gateway: this
    // turn's own requests are the ones that carry its text.
    const TEXT = `refused turn ${Math.random().toString(36).slice(2)}`
    const session = await okJson(await api().sessions.$post({ json: {} }))
    const calls = stack.gateway.requests.length
    const res = await api().chat.$post({
      json: {
        sessionId: session.id,
        workspaceId: 'wsp_default',
        model: 'made-up/d',
        // userMessage's part type is a plain string; the contract wants the literal.
        message: { ...userMessage(TEXT), parts: [{ type: 'text', text: TEXT }] },
      },
    })
    await assertRefused(res, 'model', 'made-up/d')
    const chats = stack.gateway.requests
      .slice(calls)
      .filter((r) => r.path === '/v1/chat/completions' && JSON.stringify(r.body).includes(TEXT))
    assert.deepEqual(chats, [], 'no model was called')
  })

  test('settings and agents name the refused field the same way', async () => {
    const settings = await api().settings['agent-runtime'].$patch({
      json: { configuredModel: KNOWN, localModel: 'made-up/e' },
    })
    await assertRefused(settings, 'localModel', 'made-up/e')
    const agent = await api().agents[':id'].$patch({
      param: { id: 'implementer' },
      json: { modelOverride: 'made-up/f' },
    })
    await assertRefused(agent, 'modelOverride', 'made-up/f')
  })
})

describe('model ids with the catalog unreachable', () => {
  let stack: TestStack
  const { api, createTask, createSchedule, patchSchedule } = routes(() => stack)

  before(async () => {
    stack = await startTestStack({ models: CATALOG })
    // Before anything reads it: the host has no catalog at all, not even a stale one.
    stack.gateway.failModels(503)
    stack.gateway.respondWith(() => ({ text: 'ok' }))
  })
  after(() => stack.stop())

  /** The one warning the check logs for `path`, with the ids it let through by field. */
  function acceptedWarning(lines: Record<string, any>[], path: string) {
    const warnings = lines.filter((l) => l.message === 'model ids accepted without a catalog check')
    assert.equal(warnings.length, 1, JSON.stringify(lines))
    assert.equal(warnings[0]!.level, 'warn')
    assert.equal(warnings[0]!.path, path)
    assert.match(warnings[0]!.error, /503/)
    return warnings[0]!.models
  }

  test('a task with an unchecked model is accepted and the edge logs a warning', async () => {
    const { result: res, lines } = await edgeWarnings(() => createTask({ model: 'unverified/a' }))
    assert.equal((await okJson(res, 201)).model, 'unverified/a')
    assert.deepEqual(acceptedWarning(lines, '/api/tasks'), { model: 'unverified/a' })
  })

  test('a schedule with an unchecked model is created and edited, each with a warning', async () => {
    const { result: created, lines: onCreate } = await edgeWarnings(() =>
      createSchedule({ model: 'unverified/b' }),
    )
    const made = await okJson(created, 201)
    assert.equal(made.model, 'unverified/b')
    assert.deepEqual(acceptedWarning(onCreate, '/api/schedules'), { model: 'unverified/b' })

    const { result: edited, lines: onEdit } = await edgeWarnings(() =>
      patchSchedule(made.id, { model: 'unverified/c' }),
    )
    assert.equal((await okJson(edited, 200)).model, 'unverified/c')
    assert.deepEqual(acceptedWarning(onEdit, `/api/schedules/${made.id}`), {
      model: 'unverified/c',
    })
  })
  test('a chat turn with an unchecked model runs, and the host logs a warning', async () => {
    const session = await okJson(await api().sessions.$post({ json: {} }))
    const from = stack.logs.length
    const text = 'unchecked model turn'
    const res = await api().chat.$post({
      json: {
        sessionId: session.id,
        workspaceId: 'wsp_default',
        model: 'unverified/d',
        message: { ...userMessage(text), parts: [{ type: 'text', text }] },
      },
    })
    assert.equal(res.status, 200)
    await res.text()
    const warnings = stack.logs
      .slice(from)
      .filter((l) => l.message === 'model ids accepted without a catalog check')
    assert.equal(warnings.length, 1, JSON.stringify(stack.logs.slice(from)))
    assert.equal(warnings[0]!.level, 'warn')
    assert.deepEqual(warnings[0]!.models, { model: 'unverified/d' })
    assert.match(String(warnings[0]!.error), /503/)
  })
})
