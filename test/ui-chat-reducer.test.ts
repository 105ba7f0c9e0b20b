/**
 * The chat UI's streaming logic without a browser: the SSE parser and the pure reducer that folds
 * a turn's UI-message chunks into the reply, and the helpers that read saved and live messages
 * alike. The chunk sequences are the host's (compute-host/chat/turn.ts) as the e2e tests see them.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { AssistantMetadata } from '../runtime/contracts/chat.ts'
import {
  activityOf,
  contextSize,
  replyMessage,
  textOf,
  usageOf,
  withoutExchange,
  type ShownMessage,
} from '../ui/src/chat/messages.ts'
import {
  applyChunk,
  closeReply,
  emptyReply,
  type ChatChunk,
  type ReplyState,
} from '../ui/src/chat/reducer.ts'
import { createSseParser, readSse } from '../ui/src/chat/sse.ts'

const fold = (chunks: ChatChunk[], state = emptyReply()) => chunks.reduce(applyChunk, state)
// Read as the contract has it, so a reply whose metadata stops matching fails here too.
const metadataOf = (message: ShownMessage) => AssistantMetadata.partial().parse(message.metadata)

const meta = (usage: Record<string, { inputTokens: number; outputTokens: number }> = {}) => ({
  turnId: 'trn_1',
  traceId: 'a'.repeat(32),
  model: 'remote/selected',
  usage,
})

const activity = (id: string, status: 'running' | 'completed' | 'failed', extra = {}) =>
  ({
    type: 'data-agentActivity',
    id,
    transient: true,
    data: {
      kind: 'delegation',
      agentId: 'researcher',
      agentName: 'Researcher',
      status,
      input: 'look into parse',
      startedAt: '2026-01-01T00:00:00.000Z',
      ...extra,
    },
  }) as ChatChunk

describe('applyChunk', () => {
  test('text deltas accumulate in order, per text id, while the reply streams', () => {
    const state = fold([
      { type: 'message-metadata', messageMetadata: meta() },
      { type: 'start-step' },
      { type: 'text-start', id: 'txt-0' },
      { type: 'text-delta', id: 'txt-0', delta: 'All ' },
    ])
    assert.equal(state.status, 'streaming')
    assert.equal(textOf(replyMessage(state, 'x')), 'All ')
    const done = fold(
      [
        { type: 'text-delta', id: 'txt-0', delta: 'done.' },
        { type: 'text-end', id: 'txt-0' },
        { type: 'finish-step' },
        {
          type: 'finish',
          finishReason: 'stop',
          messageMetadata: meta({ 'remote/selected': { inputTokens: 40, outputTokens: 8 } }),
        },
      ],
      state,
    )
    assert.equal(textOf(replyMessage(done, 'x')), 'All done.')
    assert.equal(done.status, 'done')
    assert.deepEqual(done.parts, [{ type: 'text', id: 'txt-0', text: 'All done.', state: 'done' }])
    assert.deepEqual(usageOf(done.metadata), [
      { model: 'remote/selected', inputTokens: 40, outputTokens: 8 },
    ])
  })

  test('a delta without its text-start still shows; two text ids stay separate', () => {
    const state = fold([
      { type: 'text-delta', id: 'a', delta: 'one ' },
      { type: 'text-start', id: 'b' },
      { type: 'text-delta', id: 'b', delta: 'two' },
      { type: 'text-delta', id: 'a', delta: 'more ' },
    ])
    assert.deepEqual(
      state.parts.map((p) => (p.type === 'text' ? p.text : p.type)),
      ['one more ', 'two'],
    )
  })

  test('an activity part with the same id is updated in place, first-seen order kept', () => {
    const state = fold([
      activity('call_1', 'running'),
      activity('act_2', 'running', { kind: 'tool', tool: 'skill_search' }),
      activity('call_1', 'completed', { output: 'Found it.', durationMs: 212 }),
    ])
    const items = activityOf(replyMessage(state, 'x'))
    assert.deepEqual(
      items.map((i) => [i.id, i.data.status, i.data.output]),
      [
        ['call_1', 'completed', 'Found it.'],
        ['act_2', 'running', undefined],
      ],
    )
    assert.equal(state.parts.length, 2, 'no duplicate item for the update')
  })

  test('the reducer never mutates the state it was given', () => {
    const before = fold([{ type: 'text-start', id: 't' }, activity('c', 'running')])
    const snapshot = structuredClone(before)
    applyChunk(before, { type: 'text-delta', id: 't', delta: 'x' })
    applyChunk(before, activity('c', 'failed', { error: 'boom' }))
    applyChunk(before, { type: 'error', errorText: 'bad' })
    assert.deepEqual(before, snapshot)
  })

  test('an error part fails the reply, and finish afterwards keeps it failed', () => {
    const state = fold([
      { type: 'message-metadata', messageMetadata: meta() },
      { type: 'start-step' },
      { type: 'error', errorText: 'the model gateway answered 502: upstream exploded' },
      { type: 'finish-step' },
      { type: 'finish', finishReason: 'error', messageMetadata: meta() },
    ])
    assert.equal(state.status, 'failed')
    const message = replyMessage(state, 'x')
    assert.match(metadataOf(message).error ?? '', /gateway answered 502/)
  })

  test('abort marks the reply stopped and keeps what had arrived', () => {
    const state = fold([
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'w0 w1 ' },
      { type: 'abort' },
    ])
    assert.equal(state.status, 'stopped')
    assert.equal(textOf(replyMessage(state, 'x')), 'w0 w1 ')
    assert.equal(metadataOf(replyMessage(state, 'x')).aborted, true)
    assert.equal(applyChunk(state, { type: 'finish' }).status, 'stopped')
  })

  test('a stream that ends without finish is a dropped connection', () => {
    const dropped = closeReply(fold([{ type: 'text-delta', id: 't', delta: 'half' }]))
    assert.equal(dropped.status, 'failed')
    assert.match(dropped.errors[0]!, /connection closed/)
    const finished = fold([{ type: 'finish' }])
    assert.equal(closeReply(finished), finished)
  })

  test('reset-step withdraws the step’s text but keeps its activity', () => {
    const state = fold([
      { type: 'text-start', id: 'a' },
      { type: 'text-delta', id: 'a', delta: 'kept' },
      { type: 'start-step' },
      { type: 'text-start', id: 'b' },
      { type: 'text-delta', id: 'b', delta: 'withdrawn' },
      activity('c', 'completed'),
      { type: 'reset-step' },
    ])
    assert.equal(textOf(replyMessage(state, 'x')), 'kept')
    assert.equal(activityOf(replyMessage(state, 'x')).length, 1)
  })

  test('start sets the message id; unknown and tool chunks change nothing', () => {
    const started = applyChunk(emptyReply(), { type: 'start', messageId: 'msg_1' })
    assert.equal(started.messageId, 'msg_1')
    assert.equal(replyMessage(started, 'fallback').id, 'msg_1')
    const ignored: ReplyState = fold(
      [
        { type: 'tool-input-start', toolCallId: 'c', toolName: 'agent-researcher' },
        { type: 'tool-output-available', toolCallId: 'c', output: { text: 'x' } },
        { type: 'data-om-status', data: { windows: {} } } as unknown as ChatChunk,
        { type: 'something-new' } as unknown as ChatChunk,
      ],
      started,
    )
    assert.equal(ignored, started)
  })
})

describe('saved messages read like live ones', () => {
  test('text, activity and usage of a saved assistant message (activity appended at the end)', () => {
    const saved = {
      id: 'msg_2',
      role: 'assistant' as const,
      parts: [
        { type: 'data-om-status', data: {} },
        { type: 'step-start' },
        { type: 'tool-agent-researcher', state: 'output-available' },
        { type: 'text', text: 'All done.', state: 'done' },
        {
          type: 'data-agentActivity',
          id: 'call_1',
          data: { kind: 'delegation', agentName: 'Researcher', status: 'completed' },
        },
      ],
      metadata: meta({
        'remote/selected': { inputTokens: 40, outputTokens: 8 },
        other: { inputTokens: 0, outputTokens: 0 },
      }),
    }
    assert.equal(textOf(saved), 'All done.')
    assert.deepEqual(
      activityOf(saved).map((a) => a.id),
      ['call_1'],
    )
    assert.deepEqual(
      usageOf(saved.metadata).map((u) => u.model),
      ['remote/selected'],
      'models without tokens are left out',
    )
  })

  test('withoutExchange removes a user message and its replies only', () => {
    const m = (id: string, role: 'user' | 'assistant') => ({ id, role })
    const list = [m('u1', 'user'), m('a1', 'assistant'), m('u2', 'user'), m('a2', 'assistant')]
    assert.deepEqual(
      withoutExchange(list, 'u1').map((x) => x.id),
      ['u2', 'a2'],
    )
    assert.deepEqual(
      withoutExchange(list, 'u2').map((x) => x.id),
      ['u1', 'a1'],
    )
    assert.equal(withoutExchange(list, 'a1'), list, 'only a user message starts an exchange')
  })

  test('contextSize shows context windows as model cards do', () => {
    assert.equal(contextSize(131_072), '128k')
    assert.equal(contextSize(8_192), '8k')
    assert.equal(contextSize(1_048_576), '1M')
    assert.equal(contextSize(200_000), '200k')
    assert.equal(contextSize(1_000_000), '1M')
    assert.equal(contextSize(12_345), '12.3k')
    assert.equal(contextSize(950), '950')
  })
})

describe('SSE parsing', () => {
  test('events split across reads, CRLF, comments, ids and [DONE]', () => {
    const parser = createSseParser()
    assert.deepEqual(parser.push(': heartbeat\n\nid: 7\ndata: {"type":"text-de'), {
      chunks: [],
      ids: [],
      done: false,
    })
    assert.deepEqual(parser.push('lta","id":"t","delta":"Hi"}\r\n\r\ndata:{"type":"finish"}\n\n'), {
      chunks: [{ type: 'text-delta', id: 't', delta: 'Hi' }, { type: 'finish' }],
      // The first event's id (the chunk's number, where a resume starts); the second has none.
      ids: [7, undefined],
      done: false,
    })
    assert.deepEqual(parser.push('data: not json\n\ndata: [DONE]\n\ndata: {"type":"late"}\n\n'), {
      chunks: [],
      ids: [],
      done: true,
    })
    assert.deepEqual(parser.push('data: {"type":"later"}\n\n'), { chunks: [], ids: [], done: true })
  })

  test('readSse hands chunks over as they arrive and reports whether [DONE] came', async () => {
    const encoder = new TextEncoder()
    const body = (parts: string[]) =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const p of parts) controller.enqueue(encoder.encode(p))
          controller.close()
        },
      })
    const seen: unknown[] = []
    const done = await readSse(
      body([
        'id: 1\ndata: {"type":"start-step"}\n',
        '\nid: 2\ndata: {"type":"finish"}\n\ndata: [DONE]\n\n',
      ]),
      (c, id) => seen.push([c, id]),
    )
    assert.equal(done, true)
    assert.deepEqual(seen, [
      [{ type: 'start-step' }, 1],
      [{ type: 'finish' }, 2],
    ])
    const cut: unknown[] = []
    // A body that ends mid-stream: the last complete-looking event still counts, no [DONE].
    assert.equal(await readSse(body(['data: {"type":"start-step"}']), (c) => cut.push(c)), false)
    assert.deepEqual(cut, [{ type: 'start-step' }])
  })
})
