/**
 * The edge calling the compute host's API in process, as `popagent start` composes them
 * (compute-host/server.ts `inProcessFetch`): a turn streams chunk by chunk and outlives a client
 * that goes away, a second client joins it, the host's refusals reach the client as they do over
 * HTTP, and the host token is still checked. The HTTP split is what every other stack test runs.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createHostClient } from '../handlers/host-client.ts'
import { HostUnavailable } from '../runtime/errors.ts'
import { postChat } from './support/chat.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient } from './support/typed-client.ts'
import { readSseEvents, type SseEvent } from './support/ui-stream.ts'
import { waitFor } from './support/until.ts'

const ROUTE = 'remote/selected'
const WORDS = Array.from({ length: 30 }, (_, i) => `w${i} `)
/** About 0.9 s of streaming, so a client can leave and another join meanwhile. */
const slowReply = () => ({ text: WORDS, chunkDelayMs: 30 })

const textOf = (events: SseEvent[]) =>
  events
    .filter((e) => e.data !== '[DONE]')
    .map((e) => JSON.parse(e.data) as { type: string; delta?: string })
    .filter((c) => c.type === 'text-delta')
    .map((c) => c.delta)
    .join('')

describe('the edge calling the host in process', () => {
  let stack: TestStack
  let inProcess: string
  let overHttp: string

  before(async () => {
    stack = await startTestStack({ models: [{ id: ROUTE }] })
    inProcess = await stack.listen({ inProcessHost: true })
    overHttp = await stack.listen()
  })
  after(() => stack.stop())

  const newSession = async () =>
    (await okJson(await typedClient(inProcess).api.sessions.$post({ json: {} }), 201)).id
  const savedReply = (id: string) =>
    waitFor(
      async () => {
        const session = await okJson(
          await typedClient(inProcess).api.sessions[':id'].$get({ param: { id } }),
        )
        const reply = session.messages[1]
        return reply && !session.liveTurn
          ? (reply.parts as { type: string; text?: string }[])
              .filter((p) => p.type === 'text')
              .map((p) => p.text)
              .join('')
          : undefined
      },
      10_000,
      'the turn to be saved',
    )

  test('a turn streams chunk by chunk while the model is still answering, and is saved', async () => {
    const id = await newSession()
    stack.gateway.respondWith(slowReply)
    try {
      let streamingWhenFirstWordCame: boolean | undefined
      const events = await readSseEvents(
        await postChat(inProcess, { sessionId: id, model: ROUTE, text: 'Talk a while' }),
        (event) => {
          if (streamingWhenFirstWordCame === undefined && event.data.includes('"delta":"w0 "')) {
            streamingWhenFirstWordCame = stack.gateway.active() === 1
          }
        },
      )
      assert.equal(streamingWhenFirstWordCame, true, 'the first word came before the last')
      assert.equal(textOf(events), WORDS.join(''))
      assert.equal(await savedReply(id), WORDS.join(''))
    } finally {
      stack.gateway.respondWith(undefined)
    }
  })

  test('a client that goes away leaves the turn running; another client joins it from its start', async () => {
    const id = await newSession()
    stack.gateway.respondWith(slowReply)
    try {
      const client = new AbortController()
      const res = await postChat(
        inProcess,
        { sessionId: id, model: ROUTE, text: 'Talk a while' },
        client.signal,
      )
      const reader = res.body!.getReader()
      let received = ''
      while (!received.includes('text-delta'))
        received += new TextDecoder().decode((await reader.read()).value)
      client.abort()
      const joined = await fetch(`${inProcess}/api/chat/${id}/stream`)
      assert.equal(joined.status, 200)
      assert.equal(textOf(await readSseEvents(joined)), WORDS.join(''))
      assert.equal(await savedReply(id), WORDS.join(''))
    } finally {
      stack.gateway.respondWith(undefined)
    }
  })

  test("the host's refusals reach the client exactly as over HTTP", async () => {
    const missing = { sessionId: 'ses_01JD0000000000000000000000', model: ROUTE, text: 'x' }
    const [local, remote] = await Promise.all([
      postChat(inProcess, missing),
      postChat(overHttp, missing),
    ])
    assert.equal(local.status, 404)
    assert.equal(remote.status, 404)
    assert.deepEqual(await local.json(), await remote.json())
  })

  test('the host token is checked in process too', async () => {
    const host = stack.host
    const right = createHostClient({ url: host.url, token: host.token, fetch: host.fetch })
    assert.equal((await right.health()).status, 'ok')
    const wrong = createHostClient({ url: host.url, token: 'not-the-token', fetch: host.fetch })
    await assert.rejects(wrong.health(), HostUnavailable)
  })
})
