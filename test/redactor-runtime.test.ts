/**
 * One redactor for the whole host: a secret added while the host runs (as the vault will add
 * them) is redacted from the next log line, the next chat stream's activity and the next task
 * transcript record on. Real stack, scripted gateway.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { markRoles, postChat, roleOf } from './support/chat.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient } from './support/typed-client.ts'
import { readUiStream } from './support/ui-stream.ts'

const SECRET = `runtime-secret-${Math.random().toString(36).slice(2)}-added-late`
let stack: TestStack
let url: string

before(async () => {
  stack = await startTestStack({ models: [{ id: 'remote/a' }] })
  url = await stack.listen()
  await markRoles(stack, ['orchistrator', 'researcher'])
  // Each delegation carries the secret; the specialist answers with it too.
  stack.gateway.respondWith((r) => {
    const delegated = (r.body?.messages ?? []).some((m: any) => m.role === 'tool')
    if (roleOf(r) === 'researcher') return { text: `the answer is ${SECRET}` }
    return delegated
      ? { text: 'done' }
      : { toolCalls: [{ name: 'agent-researcher', arguments: { prompt: `use ${SECRET}` } }] }
  })
})
after(() => stack.stop())

test('before it is added, the secret passes through (the test can see a leak)', async () => {
  stack.host.resources.log.info('probe', { value: SECRET })
  assert.ok(JSON.stringify(stack.logs.at(-1)).includes(SECRET))
})

test('a secret added at run time is redacted in the next log line, stream and transcript', async () => {
  stack.host.resources.redactor.add(SECRET)

  stack.host.resources.log.info('probe', { value: SECRET })
  assert.ok(!JSON.stringify(stack.logs.at(-1)).includes(SECRET), 'log line')
  assert.match(JSON.stringify(stack.logs.at(-1)), /\[REDACTED\]/)

  const api = typedClient(stack.edge()).api
  const sessionId = (await okJson(await api.sessions.$post({ json: {} }))).id
  const chunks = await readUiStream(
    await postChat(url, { sessionId, model: 'remote/a', text: 'go' }),
  )
  const activity = chunks.filter((c) => c.type === 'data-agentActivity')
  assert.ok(activity.length > 0, 'the turn streamed no activity')
  assert.ok(!JSON.stringify(activity).includes(SECRET), 'stream activity')
  assert.match(JSON.stringify(activity), /\[REDACTED\]/)

  const created = await api.tasks.$post({
    json: { prompt: 'go', model: 'remote/a', workspaceId: 'wsp_default' },
  })
  const taskId = (await okJson(created, 201)).id
  const readWorkflow = async () =>
    okJson(await api.tasks[':id'].workflow.$get({ param: { id: taskId } }), 200)
  let workflow = await readWorkflow()
  for (let i = 0; i < 200; i++) {
    if (['completed', 'failed', 'dead-letter'].includes(workflow.task.state)) break
    await new Promise((r) => setTimeout(r, 100))
    workflow = await readWorkflow()
  }
  assert.equal(workflow.task.state, 'completed', JSON.stringify(workflow.task))
  assert.ok(workflow.activity.length > 0, 'the task recorded no transcript')
  assert.ok(!JSON.stringify(workflow.activity).includes(SECRET), 'transcript')
  assert.match(JSON.stringify(workflow.activity), /\[REDACTED\]/)
})
