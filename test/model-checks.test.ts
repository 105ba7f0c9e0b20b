/**
 * Every route that takes a model id checks it against the gateway's catalog through the one check
 * in handlers/known-models.ts: an id the catalog does not list is a 400 UNKNOWN_MODEL that names
 * the field and stores nothing, a listed id is accepted, and with no catalog to read the id is
 * accepted and a warning logged (fail-open, so a gateway outage never blocks the owner's work).
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { json } from './support/app.ts'
import { userMessage } from './support/chat.ts'
import { startTestStack, type TestStack } from './support/stack.ts'

const KNOWN = 'remote/known'
const CATALOG = [{ id: KNOWN, contextWindow: 64_000 }]
const WEEKLY = '0 9 * * 1'
const task = { workspaceId: 'wsp_default', prompt: 'model check' }
// Disabled: nothing here should fire while the file runs.
const schedule = {
  workspaceId: 'wsp_default',
  name: 'checked',
  cron: WEEKLY,
  prompt: 'x',
  enabled: false,
}

type Refusal = { error: { code: string; message: string; data: Record<string, any> } }

/** Runs `fn` and returns the edge's warning lines (JSON, handlers/log.ts) written meanwhile. */
async function edgeWarnings(fn: () => Promise<void>): Promise<Record<string, any>[]> {
  const lines: string[] = []
  const original = console.warn
  console.warn = (...args: unknown[]) => void lines.push(args.map(String).join(' '))
  try {
    await fn()
  } finally {
    console.warn = original
  }
  return lines.map((line) => JSON.parse(line) as Record<string, any>)
}

describe('model ids with the catalog up', () => {
  let stack: TestStack
  const api = (path: string, init?: RequestInit) => stack.edge().request(path, init)
  const count = async (path: string, key: string) =>
    (((await (await api(path)).json()) as any)[key] as unknown[]).length

  before(async () => {
    stack = await startTestStack({ models: CATALOG })
    // The tasks created here run; any answer will do.
    stack.gateway.respondWith(() => ({ text: 'ok' }))
  })
  after(() => stack.stop())

  async function assertRefused(res: Response, field: string, id: string) {
    const body = (await res.json()) as Refusal
    assert.equal(res.status, 400, JSON.stringify(body))
    assert.equal(body.error.code, 'UNKNOWN_MODEL')
    assert.ok(body.error.message.includes(`"${id}" (${field})`), body.error.message)
    assert.deepEqual(body.error.data.models, [id])
    assert.deepEqual(Object.keys(body.error.data.fields), [field])
  }

  test('a task with an unknown model is refused naming the field, and nothing is stored', async () => {
    const before = await count('/api/tasks?limit=500', 'tasks')
    const res = await api('/api/tasks', json({ ...task, model: 'made-up/a' }, { method: 'POST' }))
    await assertRefused(res, 'model', 'made-up/a')
    assert.equal(await count('/api/tasks?limit=500', 'tasks'), before)
  })

  test('a task with a listed model, or none, is accepted', async () => {
    const known = await api('/api/tasks', json({ ...task, model: KNOWN }, { method: 'POST' }))
    assert.equal(known.status, 201, await known.clone().text())
    assert.equal(((await known.json()) as any).model, KNOWN)
    const none = await api('/api/tasks', json(task, { method: 'POST' }))
    assert.equal(none.status, 201, await none.clone().text())
  })

  test('a schedule is created or edited only with a listed model', async () => {
    const before = await count('/api/schedules', 'schedules')
    const refused = await api(
      '/api/schedules',
      json({ ...schedule, model: 'made-up/b' }, { method: 'POST' }),
    )
    await assertRefused(refused, 'model', 'made-up/b')
    assert.equal(await count('/api/schedules', 'schedules'), before)

    const created = await api(
      '/api/schedules',
      json({ ...schedule, model: KNOWN }, { method: 'POST' }),
    )
    const made = (await created.json()) as any
    assert.equal(created.status, 201, JSON.stringify(made))
    assert.equal(made.model, KNOWN)

    const patch = (body: Record<string, unknown>) =>
      api(`/api/schedules/${made.id}`, json(body, { method: 'PATCH' }))
    await assertRefused(await patch({ model: 'made-up/c', name: 'renamed' }), 'model', 'made-up/c')
    const unchanged = ((await (await api('/api/schedules')).json()) as any).schedules.find(
      (s: any) => s.id === made.id,
    )
    assert.equal(unchanged.model, KNOWN, 'a refused edit changes nothing')
    assert.equal(unchanged.name, 'checked')
    assert.equal((await patch({ model: null })).status, 200, 'dropping the model needs no check')
    const back = await patch({ model: KNOWN })
    assert.equal(back.status, 200)
    assert.equal(((await back.json()) as any).model, KNOWN)
  })

  test('a chat turn with an unknown model is refused before it reaches the host', async () => {
    const session = (await (await api('/api/sessions', json({}, { method: 'POST' }))).json()) as any
    const calls = stack.gateway.requests.length
    const res = await api(
      '/api/chat',
      json(
        {
          sessionId: session.id,
          workspaceId: 'wsp_default',
          model: 'made-up/d',
          message: userMessage('hello'),
        },
        { method: 'POST' },
      ),
    )
    await assertRefused(res, 'model', 'made-up/d')
    const chats = stack.gateway.requests
      .slice(calls)
      .filter((r) => r.path === '/v1/chat/completions')
    assert.deepEqual(chats, [], 'no model was called')
  })

  test('settings and agents name the refused field the same way', async () => {
    const settings = await api(
      '/api/settings/agent-runtime',
      json({ configuredModel: KNOWN, localModel: 'made-up/e' }, { method: 'PATCH' }),
    )
    await assertRefused(settings, 'localModel', 'made-up/e')
    const agent = await api(
      '/api/agents/implementer',
      json({ modelOverride: 'made-up/f' }, { method: 'PATCH' }),
    )
    await assertRefused(agent, 'modelOverride', 'made-up/f')
  })
})

describe('model ids with the catalog unreachable', () => {
  let stack: TestStack
  const api = (path: string, init?: RequestInit) => stack.edge().request(path, init)

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
    let res: Response | undefined
    const lines = await edgeWarnings(async () => {
      res = await api('/api/tasks', json({ ...task, model: 'unverified/a' }, { method: 'POST' }))
    })
    assert.equal(res!.status, 201, await res!.clone().text())
    assert.equal(((await res!.json()) as any).model, 'unverified/a')
    assert.deepEqual(acceptedWarning(lines, '/api/tasks'), { model: 'unverified/a' })
  })

  test('a schedule with an unchecked model is created and edited, each with a warning', async () => {
    let created: Response | undefined
    const onCreate = await edgeWarnings(async () => {
      created = await api(
        '/api/schedules',
        json({ ...schedule, model: 'unverified/b' }, { method: 'POST' }),
      )
    })
    const made = (await created!.json()) as any
    assert.equal(created!.status, 201, JSON.stringify(made))
    assert.equal(made.model, 'unverified/b')
    assert.deepEqual(acceptedWarning(onCreate, '/api/schedules'), { model: 'unverified/b' })

    let edited: Response | undefined
    const onEdit = await edgeWarnings(async () => {
      edited = await api(
        `/api/schedules/${made.id}`,
        json({ model: 'unverified/c' }, { method: 'PATCH' }),
      )
    })
    assert.equal(edited!.status, 200, await edited!.clone().text())
    assert.equal(((await edited!.json()) as any).model, 'unverified/c')
    assert.deepEqual(acceptedWarning(onEdit, `/api/schedules/${made.id}`), {
      model: 'unverified/c',
    })
  })
})
