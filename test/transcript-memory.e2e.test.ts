/**
 * An exchange the owner takes out of a transcript (Retry, Regenerate, Edit-and-resend and Remove
 * all save the transcript without it) leaves the agents' chat memory too: the next turn's model
 * request does not carry it. Real turns through the edge, the host, Mastra's memory in PostgreSQL
 * and the scripted gateway.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { json } from './support/app.ts'
import { messagesOf, userMessage } from './support/chat.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { errorJson, okJson, typedClient, type Client } from './support/typed-client.ts'
import { readUiStream } from './support/ui-stream.ts'

const ROUTE = 'remote/selected'
let stack: TestStack
let url: string
let api: Client['api']

before(async () => {
  stack = await startTestStack({ models: [{ id: ROUTE }] })
  url = await stack.listen()
  api = typedClient(url).api
  // Every request is answered with the text it was asked for, so answers are easy to find.
  stack.gateway.respondWith((request) => {
    const last = messagesOf(request).findLast((m) => m.role === 'user')
    const asked = JSON.stringify(last?.content ?? '').match(/(\w+) prompt/)?.[1] ?? 'some'
    return { text: `${asked} answer` }
  })
})
after(() => stack.stop())

/** Sends one turn and answers what the model was sent for it, as one string. */
async function turn(sessionId: string, text: string): Promise<string> {
  const seen = stack.gateway.requests.length
  const res = await fetch(`${url}/api/chat`, {
    ...json(
      { sessionId, workspaceId: 'wsp_default', model: ROUTE, message: userMessage(text) },
      { method: 'POST' },
    ),
  })
  assert.equal(res.status, 200)
  await readUiStream(res)
  const sent = stack.gateway.requests.slice(seen).map((r) => JSON.stringify(messagesOf(r)))
  assert.ok(sent.length > 0, 'the turn reached the model')
  return sent.join('\n')
}

async function withoutExchange(sessionId: string, prompt: string, revisionOffset = 0) {
  const session = await okJson(await api.sessions[':id'].$get({ param: { id: sessionId } }))
  const at = session.messages.findIndex(
    (m) => m.role === 'user' && JSON.stringify(m.parts).includes(prompt),
  )
  assert.ok(at >= 0, `the transcript has ${prompt}`)
  const messages = session.messages.filter((_, i) => i !== at && i !== at + 1)
  return api.sessions[':id'].$put({
    param: { id: sessionId },
    json: { revision: session.revision - revisionOffset, messages },
  })
}

test('a removed exchange is not in the next turn’s model request, a kept one is', async () => {
  const sessionId = (
    await okJson(await api.sessions.$post({ json: { workspaceId: 'wsp_default' } }))
  ).id
  await turn(sessionId, 'alpha prompt')
  const second = await turn(sessionId, 'beta prompt')
  // Memory works at all: the second turn's model saw the first exchange.
  assert.match(second, /alpha prompt/)
  assert.match(second, /alpha answer/)

  // The last exchange (what Retry, Regenerate and Edit-and-resend drop) is forgotten.
  await okJson(await withoutExchange(sessionId, 'beta prompt'), 200)
  const third = await turn(sessionId, 'gamma prompt')
  assert.match(third, /alpha prompt/)
  assert.doesNotMatch(third, /beta prompt|beta answer/)

  // An exchange in the middle (Remove) is forgotten, and the ones after it stay.
  await okJson(await withoutExchange(sessionId, 'alpha prompt'), 200)
  const fourth = await turn(sessionId, 'delta prompt')
  assert.doesNotMatch(fourth, /alpha prompt|alpha answer/)
  assert.match(fourth, /gamma prompt/)
  assert.match(fourth, /gamma answer/)

  // A save against a stale revision is refused and forgets nothing.
  await errorJson(await withoutExchange(sessionId, 'gamma prompt', 1), 409)
  const fifth = await turn(sessionId, 'epsilon prompt')
  assert.match(fifth, /gamma prompt/)
})
