/**
 * A task tree's budget (B1): a task may lower the settings' limits for itself; an endless loop
 * ends the task `failed` with class `budget-exhausted` after one attempt, with no retry and no
 * remediation, and the answer the budget allowed kept in its transcript; what the tree used is
 * stored on the task. Real stack, scripted gateway, through the API.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startTestStack, type TestStack } from './support/stack.ts'
import { errorJson, okJson, typedClient } from './support/typed-client.ts'
import { until } from './support/until.ts'

let stack: TestStack
before(async () => {
  stack = await startTestStack({ models: [{ id: 'remote/a' }] })
})
after(() => stack.stop())

const api = () => typedClient(stack.edge()).api

test('a task whose budget ends fails once, for good, with what it allowed kept', async () => {
  await okJson(
    await api().settings['agent-runtime'].$patch({
      json: { budgetToolCalls: 50, loopRepeatLimit: 20, supervisorMaxSteps: 100 },
    }),
    200,
  )
  let n = 0
  stack.gateway.respondWith((r) =>
    (r.body?.tools ?? []).length > 0
      ? { toolCalls: [{ name: 'repo-brief', arguments: { query: `q${++n}` } }] }
      : { text: 'partial answer' },
  )
  const created = await okJson(
    await api().tasks.$post({
      json: {
        prompt: 'loop forever',
        model: 'remote/a',
        workspaceId: 'wsp_default',
        budget: { budgetToolCalls: 3 },
      },
    }),
    201,
  )
  assert.deepEqual(created.budget, { budgetToolCalls: 3 })
  const read = async () =>
    okJson(await api().tasks[':id'].workflow.$get({ param: { id: created.id } }), 200)
  let workflow = await read()
  await until(async () => ((workflow = await read()), workflow.task.state === 'failed'), 20_000)
  assert.equal(workflow.task.lastErrorClass, 'budget-exhausted')
  assert.equal(workflow.task.attemptCount, 1, 'no retry')
  assert.equal(workflow.task.budgetUsed?.toolCalls, 3, 'the task’s own limit held')
  const budget = workflow.activity.find((a) => a.record.kind === 'budget')
  assert.equal(budget?.record.answer, 'partial answer')
  assert.equal(budget?.record.exhausted, 'toolCalls')
  const steps = workflow.activity.filter((a) => a.record.kind === 'step')
  assert.ok(steps.some((s) => JSON.stringify(s.record.budget).includes('"toolCalls"')))

  const list = await okJson(await api().tasks.$get({ query: {} }), 200)
  assert.ok(
    !list.tasks.some((t) => t.parentTaskId === created.id),
    'a tree out of budget gets no remediation',
  )
})

test('a task budget above the bounds is refused with the field named', async () => {
  const res = await api().tasks.$post({
    json: {
      prompt: 'x',
      workspaceId: 'wsp_default',
      budget: { budgetToolCalls: 0 },
    },
  })
  const body = await errorJson(res, 400)
  assert.match(JSON.stringify(body), /budgetToolCalls/)
})

test('a remediation shares its parent’s budget and starts from what the parent used', async () => {
  const { enqueue } = await import('../runtime/tasks/index.ts')
  const { enqueueRemediation } = await import('../compute-host/tasks/sql/enqueue-remediation.ts')
  const { tasks } = await import('../db/schema/index.ts')
  const { eq } = await import('../db/drizzle-orm.ts')
  const db = stack.host.resources.databases.application.db
  const used = { inputTokens: 1_200, outputTokens: 80, toolCalls: 4, wallTimeMs: 9_000 }
  const parent = await enqueue(db, {
    source: 'user',
    workspaceId: 'wsp_default',
    title: 'parent',
    prompt: 'p',
    budget: { budgetToolCalls: 10 },
    budgetUsed: used,
  })
  await enqueueRemediation(db, { ...parent, state: 'failed', lastErrorClass: 'validation' })
  const [child] = await db.select().from(tasks).where(eq(tasks.parentTaskId, parent.id))
  assert.deepEqual(child?.budget, { budgetToolCalls: 10 })
  assert.deepEqual(child?.budgetUsed, used)
})
