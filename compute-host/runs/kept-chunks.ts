import type { UIMessageChunk } from 'ai'

/**
 * How much of a live turn's stream is kept for clients that join it later. Past half of either
 * bound, deltas are coalesced (below); past the bound itself, the turn can no longer be replayed.
 */
export type KeptChunkLimits = { maxChunks: number; maxBytes: number }

/**
 * Room for any turn a budget lets run in practice: a coalesced turn keeps about one entry per
 * part (text, tool call, activity update) and about the bytes of its saved message, so 10,000
 * entries and 8 MiB hold a turn of thousands of tool calls or a few million characters of answer.
 */
export const KEPT_CHUNK_LIMITS: KeptChunkLimits = { maxChunks: 10_000, maxBytes: 8 * 2 ** 20 }

/** One chunk as a client is sent it: its SSE id (the last chunk number it holds) and its JSON. */
export type NumberedChunk = { id: number; json: string }

/** The delta chunks that coalesce, by the field holding their text. */
const DELTA_FIELD = {
  'text-delta': 'delta',
  'reasoning-delta': 'delta',
  'tool-input-delta': 'inputTextDelta',
} as const
type DeltaType = keyof typeof DELTA_FIELD

type Entry = {
  /** The numbers of the first and last chunk it holds (one, unless deltas were coalesced). */
  first: number
  last: number
  chunk: UIMessageChunk
  json: string
  /** A coalesced delta: its part, its whole text, and the text's length after each chunk. */
  delta?: { part: string; field: string; text: string; cuts: number[] }
}

// The bytes a coalesced chunk's boundary costs (one number in `cuts`).
const CUT_BYTES = 8

/**
 * The chunks of one live turn, numbered from 1 in the order they were streamed, kept so that a
 * client joining later replays the turn from its start, or from the chunk after the last it
 * received (its SSE `Last-Event-ID`), and then follows it live.
 *
 * Bounded by count and by bytes (of the chunks' JSON, as sent). Once either is past half its
 * bound, a text, reasoning or tool-input delta that continues the part of the last kept chunk is
 * appended to that chunk instead of kept on its own; the boundaries stay (`cuts`), so a client
 * that received part of a coalesced chunk resumes with exactly the rest of its text. A long
 * answer thus costs about its own size and one entry per part, and replays whole.
 *
 * What happens at the bound: if the kept chunks still pass either bound, the turn stops being
 * replayable. Everything kept is dropped; only the `start` chunk and the chunks that close a
 * turn (`message-metadata`, the latest only; `error`, `abort`, `finish`) are kept from then on.
 * A client joining afterwards, or resuming from before that point, is told so by a transient
 * `data-liveTurn` part (`{ replay: 'incomplete' }`) and gets the turn's closing chunks when it
 * ends: the saved revision among them, from which it reads the saved answer. Clients already
 * following the turn are not affected: they receive every chunk as it comes.
 */
export function createKeptChunks(limits: KeptChunkLimits = KEPT_CHUNK_LIMITS) {
  let entries: Entry[] = []
  let bytes = 0
  let count = 0
  let overflowedAt: number | undefined
  let start: Entry | undefined
  let closing: Entry[] = []

  const near = () => entries.length * 2 > limits.maxChunks || bytes * 2 > limits.maxBytes
  const over = () => entries.length > limits.maxChunks || bytes > limits.maxBytes

  function keepAfterOverflow(entry: Entry) {
    if (entry.chunk.type === 'message-metadata') {
      closing = closing.filter((e) => e.chunk.type !== 'message-metadata')
    } else if (!['error', 'abort', 'finish'].includes(entry.chunk.type)) return
    closing.push(entry)
  }

  return {
    /** Numbers and keeps one chunk; answers it as clients are sent it. */
    push(chunk: UIMessageChunk): NumberedChunk {
      const n = ++count
      const json = JSON.stringify(chunk)
      const entry: Entry = { first: n, last: n, chunk, json }
      if (chunk.type === 'start' && !start) start = entry
      if (overflowedAt !== undefined) {
        keepAfterOverflow(entry)
        return { id: n, json }
      }
      const field = DELTA_FIELD[chunk.type as DeltaType]
      const part = field && `${chunk.type}:${partOf(chunk)}`
      const previous = entries.at(-1)
      if (field && near() && previous?.delta?.part === part && previous.last === n - 1) {
        const text = (chunk as unknown as Record<string, string>)[field]!
        previous.delta.text += text
        previous.delta.cuts.push(previous.delta.text.length)
        previous.last = n
        bytes += text.length + CUT_BYTES
      } else {
        if (field) {
          const text = (chunk as unknown as Record<string, string>)[field]!
          entry.delta = { part, field, text, cuts: [text.length] }
        }
        entries.push(entry)
        bytes += json.length + (field ? CUT_BYTES : 0)
      }
      if (over()) {
        overflowedAt = n
        for (const kept of entries) keepAfterOverflow(kept)
        entries = []
        bytes = 0
      }
      return { id: n, json }
    },

    /**
     * What a client that received chunks 1..`after` is sent to catch up, in order (all of them
     * for 0). Past the bound (see above), `complete` is false and the chunks are the start (for a
     * client that has none) and the closing chunks so far.
     */
    replay(after: number): { chunks: NumberedChunk[]; complete: boolean } {
      if (overflowedAt !== undefined && after < count) {
        const chunks = [...(after === 0 && start ? [start] : []), ...closing]
          .filter((e) => e.last > after)
          .map((e) => ({ id: e.last, json: e.json }))
        return { chunks, complete: false }
      }
      const chunks: NumberedChunk[] = []
      for (const entry of entries) {
        if (entry.last <= after) continue
        if (entry.first > after || !entry.delta) {
          chunks.push({ id: entry.last, json: render(entry, 0) })
        } else {
          // Inside a coalesced delta: the client holds its text up to chunk `after`.
          chunks.push({
            id: entry.last,
            json: render(entry, entry.delta.cuts[after - entry.first]!),
          })
        }
      }
      return { chunks, complete: true }
    },

    /** The number of the last chunk pushed. */
    get count() {
      return count
    },
    /** What is kept now: entries and their bytes (the bench reads these). */
    size: () => ({ entries: entries.length + closing.length, bytes }),
    /** Whether the turn passed the bound and can no longer be replayed whole. */
    get overflowed() {
      return overflowedAt !== undefined
    },
  }
}
export type KeptChunks = ReturnType<typeof createKeptChunks>

function partOf(chunk: UIMessageChunk): string {
  return 'toolCallId' in chunk ? chunk.toolCallId : 'id' in chunk ? String(chunk.id) : ''
}

/** A kept chunk's JSON; a coalesced delta's with its text from `from` on. */
function render(entry: Entry, from: number): string {
  if (!entry.delta || (from === 0 && entry.first === entry.last)) return entry.json
  return JSON.stringify({ ...entry.chunk, [entry.delta.field]: entry.delta.text.slice(from) })
}
