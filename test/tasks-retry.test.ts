/**
 * `POST /api/tasks/:id/retry` through the edge on a real database: a finished task's prompt and
 * settings are queued again as a new `user` task, the original stays as it was, and live,
 * self-update and remediation work is refused with the codes the UI shows. No runner runs here,
 * so every task stays in the state the test gives it.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { eq } from '../db/drizzle-orm.ts'
import { tasks } from '../db/schema/index.ts'
import type { TaskState } from '../runtime/contracts/tasks.ts'
import { enqueue, type NewTask } from '../runtime/tasks/index.ts'
import * as Workspaces from '../runtime/workspaces/index.ts'
import { createTestApp } from './support/app.ts'
import { createTestDatabase, type TestDatabase } from './support/database.ts'
import { errorJson, okJson, typedClient } from './support/typed-client.ts'

const API_KEY = 'tasks-retry-api-key-0123456789'

describe('retrying a task', () => {
  let database: TestDatabase
  before(async () => {
    database = await createTestDatabase()
  })
  after(() => database.drop())

  const client = () => typedClient(createTestApp({ db: database.db })).api.tasks
  const retry = (id: string) => client()[':id'].retry.$post({ param: { id } })
  const get = async (id: string) => okJson(await client()[':id'].$get({ param: { id } }), 200)
  /** A task as the runner would have left it, in `state`. */
  const taskIn = async (state: TaskState, fields: Partial<NewTask> = {}) => {
    const row = await enqueue(database.db, {
      source: 'user',
      workspaceId: 'wsp_default',
      title: 'Summarise the week',
      prompt: 'Summarise the week\n\nList the merged changes.',
      ...fields,
    })
    await database.db
      .update(tasks)
      .set({ state, attemptCount: 1, result: state === 'completed' ? '## Done' : null })
      .where(eq(tasks.id, row.id))
    return row.id
  }

  test('a finished task is queued again with its prompt and settings; the original stays', async () => {
    const workspace = await Workspaces.create(database.db, { name: 'retry-ws', path: 'retry-ws' })
    for (const state of ['completed', 'failed', 'cancelled', 'dead-letter'] as const) {
      const id = await taskIn(state, {
        workspaceId: workspace.id,
        title: `Weekly summary (${state})`,
        model: 'remote/a',
        maxAttempts: 2,
        budget: { toolCalls: 7 },
      })
      const before = await get(id)
      const retried = await okJson(await retry(id), 201)
      assert.notEqual(retried.id, id)
      assert.equal(retried.state, 'queued')
      assert.equal(retried.attemptCount, 0)
      assert.equal(retried.result, null)
      assert.equal(retried.source, 'user')
      assert.equal(retried.kind, 'agent')
      assert.deepEqual(
        [retried.workspaceId, retried.title, retried.prompt, retried.model],
        [workspace.id, `Weekly summary (${state})`, before.prompt, 'remote/a'],
      )
      assert.equal(retried.maxAttempts, 2)
      assert.deepEqual(retried.budget, { toolCalls: 7 })
      assert.deepEqual(await get(retried.id), retried, 'the new task is stored as answered')
      assert.deepEqual(await get(id), before, `the ${state} original is unchanged`)
    }
  })

  test('a ceiling raised by outages is held to what an owner may ask for', async () => {
    const id = await taskIn('failed', { maxAttempts: 14 })
    assert.equal((await okJson(await retry(id), 201)).maxAttempts, 10)
  })

  test('live work is a 409 TASK_ACTIVE, and nothing is queued', async () => {
    for (const state of ['queued', 'running', 'cancelling'] as const) {
      const id = await taskIn(state)
      const count = (await database.db.select().from(tasks)).length
      const refused = await errorJson(await retry(id), 409)
      assert.equal(refused.error.code, 'TASK_ACTIVE', state)
      assert.equal((await database.db.select().from(tasks)).length, count)
    }
  })

  test('self-update and remediation work is a 409 TASK_NOT_RETRYABLE', async () => {
    const parent = await taskIn('failed')
    const remediation = await taskIn('failed', { kind: 'remediation', parentTaskId: parent })
    const selfUpdate = await taskIn('completed', { source: 'self-update' })
    for (const id of [remediation, selfUpdate]) {
      const refused = await errorJson(await retry(id), 409)
      assert.equal(refused.error.code, 'TASK_NOT_RETRYABLE')
    }
  })

  test('a missing task is a 404, a malformed id a 400', async () => {
    const missing = await errorJson(await retry('tsk_00000000000000000000000000'), 404)
    assert.equal(missing.error.code, 'TASK_NOT_FOUND')
    await errorJson(await retry('not-a-task-id'), 400)
  })

  test('with an API key configured the route needs it', async () => {
    const id = await taskIn('completed')
    const edge = createTestApp({ db: database.db, apiKey: API_KEY })
    const path = `/api/tasks/${id}/retry`
    assert.equal((await edge.request(path, { method: 'POST' })).status, 401)
    const wrong = { 'x-popagent-key': 'wrong-key-0123456789abcdef' }
    assert.equal((await edge.request(path, { method: 'POST', headers: wrong })).status, 401)
    const right = { 'x-popagent-key': API_KEY }
    assert.equal((await edge.request(path, { method: 'POST', headers: right })).status, 201)
  })
})
