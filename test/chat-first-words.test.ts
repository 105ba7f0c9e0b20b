/**
 * When the model's words arrive together (a fast local model, or deltas the network delivered in
 * one read), the first of them still leaves the host before it has worked through the rest: the
 * client reads the first delta on its own, not in one block with the last. Real stack (edge and
 * host over HTTP), scripted gateway sending its whole answer in one burst.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { postChat } from './support/chat.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient } from './support/typed-client.ts'

// Small enough that the gateway's burst reaches the host in one read (about 8 KB).
const WORDS = Array.from({ length: 60 }, (_, i) => `w${i} `)

let stack: TestStack
let url: string
before(async () => {
  stack = await startTestStack({ models: [{ id: 'remote/a' }] })
  url = await stack.listen()
})
after(() => stack.stop())

test('the first words of a burst reach the client before the last ones', async () => {
  stack.gateway.respondWith(() => ({ text: WORDS }))
  const api = typedClient(stack.edge()).api
  for (let attempt = 0; attempt < 3; attempt++) {
    const sessionId = (await okJson(await api.sessions.$post({ json: {} }))).id
    const response = await postChat(url, { sessionId, model: 'remote/a', text: 'go' })
    assert.equal(response.status, 200)
    // The body as the client's socket delivers it: which read held the first and the last word.
    const decoder = new TextDecoder()
    let received = ''
    let firstRead: number | undefined
    let lastRead: number | undefined
    let reads = 0
    for await (const bytes of response.body!) {
      received += decoder.decode(bytes as Uint8Array, { stream: true })
      reads++
      if (firstRead === undefined && received.includes('"delta":"w0 "')) firstRead = reads
      if (lastRead === undefined && received.includes(`"delta":"${WORDS.at(-1)}"`)) lastRead = reads
    }
    assert.ok(firstRead !== undefined && lastRead !== undefined, 'the answer was not streamed')
    assert.ok(
      firstRead < lastRead,
      `the first word came in read ${firstRead}, with the last (attempt ${attempt + 1})`,
    )
  }
})
