/**
 * A specialist gets its own instructions and the conversation, never the supervisor's system
 * messages (its instructions, skills list, the repository brief). Real stack, scripted gateway.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { markRoles, messagesOf, postChat, roleOf } from './support/chat.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient } from './support/typed-client.ts'
import { readUiStream } from './support/ui-stream.ts'

let stack: TestStack
before(async () => {
  stack = await startTestStack({ models: [{ id: 'remote/a' }] })
  await markRoles(stack, ['orchistrator', 'researcher'])
})
after(() => stack.stop())

test("a specialist's request carries none of the supervisor's system messages", async () => {
  stack.gateway.respondWith((r) => {
    if (roleOf(r) === 'researcher') return { text: 'found it' }
    return messagesOf(r).some((m) => m.role === 'tool')
      ? { text: 'done' }
      : { toolCalls: [{ name: 'agent-researcher', arguments: { prompt: 'look' } }] }
  })
  const url = await stack.listen()
  const api = typedClient(stack.edge()).api
  const sessionId = (await okJson(await api.sessions.$post({ json: {} }))).id
  await readUiStream(await postChat(url, { sessionId, model: 'remote/a', text: 'please research' }))
  const specialist = stack.gateway.requests.filter((r) => roleOf(r) === 'researcher')
  assert.ok(specialist.length > 0, 'the researcher was never called')
  for (const request of specialist) {
    const text = JSON.stringify(messagesOf(request))
    assert.ok(!text.includes('ROLE:orchistrator'), 'the supervisor’s instructions leaked')
    assert.ok(text.includes('ROLE:researcher'))
  }
})
