import type { UIMessageChunk } from 'ai'
import {
  createKeptChunks,
  KEPT_CHUNK_LIMITS,
  type KeptChunkLimits,
  type NumberedChunk,
} from './kept-chunks.ts'

/** The chunk types a client that could not replay a turn whole still follows (kept-chunks.ts). */
const CLOSING = new Set(['message-metadata', 'error', 'abort', 'finish'])

/** Said (transiently) to a client that joined a turn too long to replay whole. */
const INCOMPLETE = JSON.stringify({
  type: 'data-liveTurn',
  data: { replay: 'incomplete' },
  transient: true,
})

const encoder = new TextEncoder()
const event = (chunk: NumberedChunk) => encoder.encode(`id: ${chunk.id}\ndata: ${chunk.json}\n\n`)
const DONE = encoder.encode('data: [DONE]\n\n')

type Follower = {
  send(chunk: NumberedChunk, type: string): void
  end(): void
}

/**
 * One live turn's stream as any number of clients read it: each joins with the number of the
 * last chunk it holds (0 for none), is sent what it missed from the kept chunks, then every chunk
 * as it comes, as server-sent events (`id: n`, `data: {chunk}`) ending with `data: [DONE]` when
 * the turn ends, as the AI SDK's UI-message stream protocol has them.
 *
 * A client that stops reading is not waited for: the turn never slows for a client. Its queue
 * is bounded (`maxQueuedBytes`); past it, its stream ends without `[DONE]`, and the client, which
 * knows the last chunk it received, joins again from there.
 */
export function createTurnStream(
  options: { limits?: KeptChunkLimits; maxQueuedBytes?: number } = {},
) {
  const kept = createKeptChunks(options.limits ?? KEPT_CHUNK_LIMITS)
  const maxQueuedBytes = options.maxQueuedBytes ?? 16 * 2 ** 20
  const followers = new Set<Follower>()
  let ended = false

  return {
    push(chunk: UIMessageChunk): void {
      const numbered = kept.push(chunk)
      for (const follower of followers) follower.send(numbered, chunk.type)
    },
    /** The turn's stream ended: every client gets `[DONE]`; later joins see nothing to follow. */
    end(): void {
      ended = true
      for (const follower of followers) follower.end()
      followers.clear()
    },
    get ended() {
      return ended
    },
    /** The turn's stream for a client that holds chunks 1..`after`, as SSE bytes. */
    join(after: number): ReadableStream<Uint8Array> {
      let follower: Follower | undefined
      return new ReadableStream<Uint8Array>(
        {
          start(controller) {
            // Replayed and registered in one synchronous step: no chunk falls between the two.
            const { chunks, complete } = kept.replay(after)
            for (const chunk of chunks) controller.enqueue(event(chunk))
            if (!complete) controller.enqueue(encoder.encode(`data: ${INCOMPLETE}\n\n`))
            if (ended) {
              controller.enqueue(DONE)
              controller.close()
              return
            }
            const current: Follower = {
              send(chunk, type) {
                if (chunk.id <= after || (!complete && !CLOSING.has(type))) return
                controller.enqueue(event(chunk))
                // A client this far behind is let go; it resumes from its last chunk.
                if ((controller.desiredSize ?? 0) < -maxQueuedBytes) {
                  followers.delete(current)
                  controller.close()
                }
              },
              end() {
                controller.enqueue(DONE)
                controller.close()
              },
            }
            follower = current
            followers.add(current)
          },
          cancel() {
            if (follower) followers.delete(follower)
          },
        },
        new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 }),
      )
    },
    /** The kept chunks' count and bytes, and whether the turn can still be replayed whole. */
    kept: () => ({ ...kept.size(), chunks: kept.count, overflowed: kept.overflowed }),
  }
}
export type TurnStream = ReturnType<typeof createTurnStream>
