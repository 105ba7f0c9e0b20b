/**
 * The shared field rules (runtime/contracts/fields.ts) through the real edge: the same bad input
 * gets the same 400 on every route that takes the field, naming the field, and never reaches
 * PostgreSQL (where a NUL would be an INVALID_TEXT and a lone surrogate silently replaced).
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { MODEL_ID_MAX } from '../runtime/contracts/fields.ts'
import { UNSTORABLE_MESSAGE } from '../runtime/contracts/storable-text.ts'
import { createTestApp, json } from './support/app.ts'
import { createTestDatabase, type TestDatabase } from './support/database.ts'
import { errorJson, typedClient, type WireError } from './support/typed-client.ts'

const SESSION = 'ses_00000000000000000000000000'
const SCHEDULE = 'sch_00000000000000000000000000'

type Route = { what: string; method: string; path: string; body: (bad: string) => unknown }

/** Every route that saves a title, a name or a prompt, with `bad` in that field. */
const TEXT_ROUTES: (Route & { field: string })[] = [
  {
    what: 'session create',
    method: 'POST',
    path: '/api/sessions',
    field: 'title',
    body: (bad) => ({ title: bad }),
  },
  {
    what: 'session rename',
    method: 'PATCH',
    path: `/api/sessions/${SESSION}`,
    field: 'title',
    body: (bad) => ({ title: bad }),
  },
  {
    what: 'session save',
    method: 'PUT',
    path: `/api/sessions/${SESSION}`,
    field: 'title',
    body: (bad) => ({ revision: 0, messages: [], title: bad }),
  },
  {
    what: 'schedule name',
    method: 'POST',
    path: '/api/schedules',
    field: 'name',
    body: (bad) => ({ workspaceId: 'wsp_default', name: bad, cron: '* * * * *', prompt: 'p' }),
  },
  {
    what: 'schedule prompt',
    method: 'POST',
    path: '/api/schedules',
    field: 'prompt',
    body: (bad) => ({ workspaceId: 'wsp_default', name: 'n', cron: '* * * * *', prompt: bad }),
  },
  {
    what: 'schedule prompt edit',
    method: 'PATCH',
    path: `/api/schedules/${SCHEDULE}`,
    field: 'prompt',
    body: (bad) => ({ prompt: bad }),
  },
  {
    what: 'agent name',
    method: 'PATCH',
    path: '/api/agents/orchestrator',
    field: 'displayName',
    body: (bad) => ({ displayName: bad }),
  },
  {
    what: 'agent instructions',
    method: 'PATCH',
    path: '/api/agents/orchestrator',
    field: 'instructions',
    body: (bad) => ({ instructions: bad }),
  },
  {
    what: 'settings text',
    method: 'PATCH',
    path: '/api/settings/agent-runtime',
    field: 'finalResponseFeedback',
    body: (bad) => ({ finalResponseFeedback: bad }),
  },
  {
    what: 'chat message',
    method: 'POST',
    path: '/api/chat',
    field: 'message',
    body: (bad) => ({
      sessionId: SESSION,
      workspaceId: 'wsp_default',
      message: { id: 'm', role: 'user', parts: [{ type: 'text', text: bad }] },
    }),
  },
]

/** Every route that takes a model id, with `bad` as the model. */
const MODEL_ROUTES: (Route & { field: string })[] = [
  {
    what: 'chat',
    method: 'POST',
    path: '/api/chat',
    field: 'model',
    body: (bad) => ({
      sessionId: SESSION,
      workspaceId: 'wsp_default',
      model: bad,
      message: { id: 'm', role: 'user', parts: [{ type: 'text', text: 'hi' }] },
    }),
  },
  {
    what: 'settings',
    method: 'PATCH',
    path: '/api/settings/agent-runtime',
    field: 'configuredModel',
    body: (bad) => ({ configuredModel: bad }),
  },
  {
    what: 'agent override',
    method: 'PATCH',
    path: '/api/agents/orchestrator',
    field: 'modelOverride',
    body: (bad) => ({ modelOverride: bad }),
  },
  {
    what: 'schedule create',
    method: 'POST',
    path: '/api/schedules',
    field: 'model',
    body: (bad) => ({
      workspaceId: 'wsp_default',
      name: 'n',
      cron: '* * * * *',
      prompt: 'p',
      model: bad,
    }),
  },
  {
    what: 'schedule edit',
    method: 'PATCH',
    path: `/api/schedules/${SCHEDULE}`,
    field: 'model',
    body: (bad) => ({ model: bad }),
  },
]

describe('shared field rules', () => {
  let database: TestDatabase
  // Untyped requests on purpose: one table of routes, each sent a body its contract refuses.
  let send: (route: Route, bad: string) => Promise<{ status: number; body: WireError }>
  before(async () => {
    database = await createTestDatabase()
    const app = createTestApp({ db: database.db })
    send = async (route, bad) => {
      const res = await app.request(route.path, json(route.body(bad), { method: route.method }))
      return { status: res.status, body: await errorJson(res) }
    }
  })
  after(() => database.drop())

  const unstorable = [
    ['a NUL', 'a\u0000b'],
    ['a lone high surrogate', 'ok \ud800 ☃'],
    ['a lone low surrogate', 'x\udc00'],
  ] as const
  for (const [what, bad] of unstorable) {
    test(`${what} in saved text is the same VALIDATION_FAILED on every route, naming the field`, async () => {
      for (const route of TEXT_ROUTES) {
        const { status, body } = await send(route, bad)
        const label = `${route.what}: ${JSON.stringify(body).slice(0, 300)}`
        assert.equal(status, 400, label)
        assert.equal(body.error.code, 'VALIDATION_FAILED', label)
        assert.deepEqual(body.error.data?.fields?.[route.field], [UNSTORABLE_MESSAGE], label)
      }
    })
  }

  test('an over-long model id is the same VALIDATION_FAILED on every route, naming the field', async () => {
    for (const bad of ['m'.repeat(MODEL_ID_MAX + 1), 'provider/\u0000']) {
      for (const route of MODEL_ROUTES) {
        const { status, body } = await send(route, bad)
        const label = `${route.what}: ${JSON.stringify(body).slice(0, 300)}`
        assert.equal(status, 400, label)
        assert.equal(body.error.code, 'VALIDATION_FAILED', label)
        assert.equal(body.error.data?.fields?.[route.field]?.length, 1, label)
      }
    }
  })

  test('a task prompt or title with a NUL is refused the same way', async () => {
    const tasks = typedClient(createTestApp({ db: database.db })).api.tasks
    for (const body of [
      { workspaceId: 'wsp_default', prompt: 'a\u0000b' },
      { workspaceId: 'wsp_default', prompt: 'p', title: 'a\u0000b' },
    ]) {
      const answer = await errorJson(await tasks.$post({ json: body }), 400)
      assert.equal(answer.error.code, 'VALIDATION_FAILED', JSON.stringify(answer))
    }
  })
})
