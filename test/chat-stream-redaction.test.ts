/**
 * The chat stream and the saved turn pass the host's redactor, including a secret the model
 * splits across text deltas; the stream's last metadata names the revision the turn was saved
 * at. Real stack, scripted gateway.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { UIMessageChunk } from 'ai'
import { redactUiStream } from '../compute-host/runs/stream-redaction.ts'
import { createSecretRedactor } from '../runtime/redaction.ts'
import { postChat } from './support/chat.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient } from './support/typed-client.ts'
import { readUiStream } from './support/ui-stream.ts'

const SECRET = `stream-secret-${Math.random().toString(36).slice(2)}-0123`

async function through(chunks: UIMessageChunk[]): Promise<UIMessageChunk[]> {
  const out: UIMessageChunk[] = []
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const c of chunks) controller.enqueue(c)
      controller.close()
    },
  }).pipeThrough(redactUiStream(createSecretRedactor([SECRET])))
  for await (const chunk of stream) out.push(chunk)
  return out
}

const textOf = (chunks: UIMessageChunk[]) =>
  chunks.map((c) => (c.type === 'text-delta' ? c.delta : '')).join('')

test('a secret split across text deltas never reaches the client, and no text is lost', async () => {
  const cut = 5
  const out = await through([
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: `key is ${SECRET.slice(0, cut)}` },
    { type: 'text-delta', id: 't', delta: `${SECRET.slice(cut)} and more` },
    { type: 'text-end', id: 't' },
  ])
  for (const chunk of out) assert.ok(!JSON.stringify(chunk).includes(SECRET.slice(0, 12)))
  assert.equal(textOf(out), 'key is [REDACTED] and more')
  assert.equal(out.at(-1)?.type, 'text-end')
})

test('ordinary text is sent at once; only an end that could start a secret waits', async () => {
  const out = await through([
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: 'plain words ' },
    { type: 'text-delta', id: 't', delta: `then ${SECRET.slice(0, 6)}` },
    { type: 'text-delta', id: 't', delta: 'xyz, not a secret' },
    { type: 'text-end', id: 't' },
  ])
  const deltas = out.flatMap((c) => (c.type === 'text-delta' ? [c.delta] : []))
  assert.equal(deltas[0], 'plain words ', 'the first delta was held back')
  assert.equal(deltas[1], 'then ', 'the possible start of a secret was not held back')
  assert.equal(deltas.join(''), `plain words then ${SECRET.slice(0, 6)}xyz, not a secret`)
})

test('text cut off without its end is still delivered, redacted', async () => {
  const out = await through([
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: `tail ${SECRET}` },
  ])
  assert.equal(textOf(out), 'tail [REDACTED]')
})

test('a secret split across tool input or reasoning deltas never reaches the client', async () => {
  const cut = 7
  const input = JSON.stringify({ query: `find ${SECRET} now` })
  const at = input.indexOf(SECRET) + cut
  const out = await through([
    { type: 'tool-input-start', toolCallId: 'c1', toolName: 'web-search' },
    { type: 'tool-input-delta', toolCallId: 'c1', inputTextDelta: input.slice(0, at) },
    { type: 'tool-input-delta', toolCallId: 'c1', inputTextDelta: input.slice(at) },
    {
      type: 'tool-input-available',
      toolCallId: 'c1',
      toolName: 'web-search',
      input: JSON.parse(input),
    },
    { type: 'reasoning-start', id: 'r' },
    { type: 'reasoning-delta', id: 'r', delta: `the key ${SECRET.slice(0, cut)}` },
    { type: 'reasoning-delta', id: 'r', delta: `${SECRET.slice(cut)} is known` },
    { type: 'reasoning-end', id: 'r' },
  ])
  for (const chunk of out) assert.ok(!JSON.stringify(chunk).includes(SECRET.slice(0, cut + 3)))
  const typed = out.flatMap((c) => (c.type === 'tool-input-delta' ? [c.inputTextDelta] : []))
  assert.equal(typed.join(''), JSON.stringify({ query: 'find [REDACTED] now' }))
  const tool = out.findIndex((c) => c.type === 'tool-input-available')
  assert.ok(
    out.slice(0, tool).every((c) => c.type !== 'reasoning-delta'),
    'in order',
  )
  const reasoning = out.flatMap((c) => (c.type === 'reasoning-delta' ? [c.delta] : []))
  assert.equal(reasoning.join(''), 'the key [REDACTED] is known')
  assert.equal(out.at(-1)?.type, 'reasoning-end')
})

let stack: TestStack
let url: string
before(async () => {
  stack = await startTestStack({ models: [{ id: 'remote/a' }] })
  url = await stack.listen()
})
after(() => stack.stop())

test('a turn streams and saves the answer redacted, and names the revision it was saved at', async () => {
  stack.host.resources.redactor.add(SECRET)
  const half = Math.floor(SECRET.length / 2)
  stack.gateway.respondWith(() => ({
    text: ['the key: ', SECRET.slice(0, half), SECRET.slice(half), ' (done)'],
  }))
  const api = typedClient(stack.edge()).api
  const sessionId = (await okJson(await api.sessions.$post({ json: {} }))).id
  const chunks = (await readUiStream(
    await postChat(url, { sessionId, model: 'remote/a', text: 'tell me' }),
  )) as UIMessageChunk[]
  assert.ok(!JSON.stringify(chunks).includes(SECRET), 'the stream leaked the secret')
  assert.equal(textOf(chunks), 'the key: [REDACTED] (done)')

  const session = await okJson(await api.sessions[':id'].$get({ param: { id: sessionId } }), 200)
  assert.ok(!JSON.stringify(session.messages).includes(SECRET), 'the saved turn leaked it')
  assert.match(JSON.stringify(session.messages), /\[REDACTED\]/)

  const last = chunks.filter((c) => c.type === 'message-metadata').at(-1)
  assert.ok(last?.type === 'message-metadata')
  assert.equal(
    (last.messageMetadata as { savedRevision?: number }).savedRevision,
    session.revision,
    'the last metadata names the saved revision',
  )
  assert.equal(chunks.at(-1)?.type, 'finish', 'the finish still ends the stream')
})
