/**
 * Observational Memory from the persisted settings: with a low observation threshold, a long
 * turn makes Mastra's Observer run, and it runs on the route the request selected.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient } from './support/typed-client.ts'
import { readUiStream } from './support/ui-stream.ts'
import { postChat } from './support/chat.ts'

const ROUTE = 'remote/observer-route'
let stack: TestStack
let url: string

before(async () => {
  stack = await startTestStack({ models: [{ id: ROUTE }] })
  url = await stack.listen()
  const res = await typedClient(stack.edge()).api.settings.memory.$patch({
    json: { observationMessageTokens: 1_000, asyncBuffering: false, observationBlockAfter: 1 },
  })
  await okJson(res, 200)
})
after(() => stack.stop())

test('the Observer runs on the selected gateway route once the threshold is passed', async () => {
  const api = typedClient(url).api
  const sessionId = (await okJson(await api.sessions.$post({ json: {} }))).id
  stack.gateway.respondWith((request) => {
    const system = JSON.stringify(request.body.messages.filter((m: any) => m.role === 'system'))
    if (/observ/i.test(system) && !/ROLE/.test(system)) {
      return { text: '<observations>\n- User pasted a long log.\n</observations>' }
    }
    return { text: 'noted' }
  })
  try {
    const seen = stack.gateway.requests.length
    const long = Array.from({ length: 600 }, (_, i) => `log line ${i}: value=${i * 7}`).join('\n')
    for (const text of [long, 'and one more thing']) {
      const res = await postChat(url, { sessionId, model: ROUTE, text })
      await readUiStream(res)
    }
    await stack.host.resources.memory
      .forSettings(await okJson(await api.settings.memory.$get(), 200))
      .settled()
    const calls = stack.gateway.requests
      .slice(seen)
      .filter((r) => r.path === '/v1/chat/completions')
    const observer = calls.filter(
      (r) =>
        /observ/i.test(
          JSON.stringify(r.body.messages.filter((m: any) => m.role === 'system')).slice(0, 4000),
        ) && !JSON.stringify(r.body.tools ?? []).includes('agent-'),
    )
    assert.ok(observer.length > 0, `no Observer call among ${calls.length} requests`)
    for (const call of calls) assert.equal(call.body.model, ROUTE)
  } finally {
    stack.gateway.respondWith(undefined)
  }
})
