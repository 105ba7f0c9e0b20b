/**
 * What a live turn keeps for clients that join it later (compute-host/runs/kept-chunks.ts and
 * turn-stream.ts): bounded by count and bytes, with deltas coalesced near the bound so a long
 * answer still replays whole and a client resumes exactly where it left off; past the bound, a
 * late client is told the replay is incomplete and still gets the turn's end.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { UIMessageChunk } from 'ai'
import { createKeptChunks, KEPT_CHUNK_LIMITS } from '../compute-host/runs/kept-chunks.ts'
import { createTurnStream } from '../compute-host/runs/turn-stream.ts'
import { readSseEvents } from './support/ui-stream.ts'

const parse = (json: string) => JSON.parse(json) as UIMessageChunk & { delta?: string }
const textOf = (chunks: { json: string }[]) =>
  chunks
    .map((c) => parse(c.json))
    .filter((c) => c.type === 'text-delta')
    .map((c) => c.delta)
    .join('')

/** A turn answering with `deltas` words in one text part, between a tool call's deltas. */
function longTurn(deltas: number): UIMessageChunk[] {
  const chunks: UIMessageChunk[] = [
    { type: 'start', messageId: 'msg_1' },
    { type: 'tool-input-start', toolCallId: 'call_1', toolName: 'search' },
    ...Array.from({ length: 50 }, (): UIMessageChunk => ({
      type: 'tool-input-delta',
      toolCallId: 'call_1',
      inputTextDelta: '{"q":1}',
    })),
    { type: 'text-start', id: 't1' },
  ]
  for (let i = 0; i < deltas; i++) chunks.push({ type: 'text-delta', id: 't1', delta: `w${i} ` })
  chunks.push({ type: 'text-end', id: 't1' }, { type: 'finish' })
  return chunks
}

test('a long answer keeps within the bounds by count and bytes, and replays whole', () => {
  const kept = createKeptChunks()
  const chunks = longTurn(300_000)
  const answer = chunks.flatMap((c) => (c.type === 'text-delta' ? [c.delta] : [])).join('')
  let sent = 0
  for (const chunk of chunks) sent += kept.push(chunk).json.length
  const size = kept.size()
  assert.ok(sent > KEPT_CHUNK_LIMITS.maxBytes, `the turn streamed ${sent} bytes, over the bound`)
  assert.ok(size.entries <= KEPT_CHUNK_LIMITS.maxChunks, `${size.entries} entries kept`)
  assert.ok(size.bytes <= KEPT_CHUNK_LIMITS.maxBytes, `${size.bytes} bytes kept`)
  assert.equal(kept.overflowed, false)
  const { chunks: replayed, complete } = kept.replay(0)
  assert.equal(complete, true)
  assert.equal(textOf(replayed), answer)
  assert.deepEqual(
    replayed.map((c) => c.id),
    [...replayed.map((c) => c.id)].sort((a, b) => a - b),
  )
  assert.equal(replayed.at(-1)?.id, chunks.length, 'the last event names the last chunk')
  assert.equal(parse(replayed[0]!.json).type, 'start')
})

test('a client resuming inside coalesced deltas is sent exactly the rest of the text', () => {
  // Small bounds, so coalescing starts early.
  const kept = createKeptChunks({ maxChunks: 20, maxBytes: 1_000_000 })
  const chunks = longTurn(500)
  for (const chunk of chunks) kept.push(chunk)
  assert.ok(kept.size().entries <= 20)
  for (const after of [0, 3, 11, 30, 57, 58, 200, 333, chunks.length - 2, chunks.length]) {
    const received = chunks.slice(0, after)
    const rest = kept.replay(after).chunks
    assert.ok(
      rest.every((c) => c.id > after),
      `after ${after}: every event is newer`,
    )
    const text = (list: { type: string; delta?: string }[]) =>
      list.flatMap((c) => (c.type === 'text-delta' ? [c.delta] : [])).join('')
    assert.equal(
      text(received) + textOf(rest),
      text(chunks),
      `after ${after}: nothing missed or repeated`,
    )
    const input = (list: UIMessageChunk[]) =>
      list.flatMap((c) => (c.type === 'tool-input-delta' ? [c.inputTextDelta] : [])).join('')
    assert.equal(
      input(received) + input(rest.map((c) => parse(c.json))),
      input(chunks),
      `after ${after}: the tool input too`,
    )
  }
})

test('past the bound, a late client is told the replay is incomplete and still gets the turn’s end', async () => {
  const stream = createTurnStream({ limits: { maxChunks: 50, maxBytes: 2_000 } })
  const early = stream.join(0)
  const chunks = longTurn(400)
  const finish = chunks.pop()!
  for (const chunk of chunks) stream.push(chunk)
  assert.equal(stream.kept().overflowed, true)
  assert.ok(stream.kept().bytes <= 2_000)
  const late = stream.join(0)
  stream.push({ type: 'message-metadata', messageMetadata: { savedRevision: 3 } })
  stream.push(finish)
  stream.end()

  // The client that followed from the start got every chunk.
  const all = await readSseEvents(new Response(early))
  assert.equal(all.length, chunks.length + 3)
  // The late one: the start, the notice, then only the closing chunks (no delta of a part it
  // never saw begin), and the end.
  const events = await readSseEvents(new Response(late))
  const types = events.map((e) => (e.data === '[DONE]' ? '[DONE]' : parse(e.data).type))
  assert.deepEqual(types, ['start', 'data-liveTurn', 'message-metadata', 'finish', '[DONE]'])
  assert.deepEqual(JSON.parse(events[1]!.data).data, { replay: 'incomplete' })
  assert.equal(JSON.parse(events[2]!.data).messageMetadata.savedRevision, 3)
  // Joining after the end: what is kept, and the end at once.
  const after = await readSseEvents(new Response(stream.join(0)))
  assert.equal(after.at(-1)?.data, '[DONE]')
})

test('a client that stops reading is let go once its queue passes the bound; the turn goes on', async () => {
  const stream = createTurnStream({ maxQueuedBytes: 10_000 })
  const stalled = stream.join(0)
  const following = stream.join(0)
  const read = readSseEvents(new Response(following))
  const chunks = longTurn(20_000)
  // The turn goes on at its own pace; the following client reads between its bursts.
  for (let i = 0; i < chunks.length; i++) {
    stream.push(chunks[i]!)
    if (i % 100 === 0) await new Promise((resolve) => setImmediate(resolve))
  }
  stream.end()
  const events = await readSseEvents(new Response(stalled))
  assert.ok(events.length < chunks.length / 4, `${events.length} events queued for it`)
  assert.notEqual(events.at(-1)?.data, '[DONE]', 'its stream ends without [DONE]: it resumes')
  assert.equal((await read).length, chunks.length + 1)
})

test('a client naming a chunk not written yet is sent only the chunks after it', async () => {
  const stream = createTurnStream()
  const ahead = stream.join(5)
  const chunks = longTurn(6)
  for (const chunk of chunks) stream.push(chunk)
  stream.end()
  const events = await readSseEvents(new Response(ahead))
  const later = chunks.slice(5).map((_, i) => i + 6)
  assert.deepEqual(
    events.map((e) => e.id),
    [...later, undefined],
  )
})
