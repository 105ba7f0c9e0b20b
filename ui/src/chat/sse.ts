/**
 * Server-sent events → UI-message chunks: `data: {json}` events separated by a blank line, until
 * `data: [DONE]`. An event's `id:` is the chunk's number in its turn (where a client that lost
 * the connection resumes); comment lines (heartbeats) and other fields are skipped. No DOM, no
 * `ai`.
 */

export type SseParser = {
  /**
   * Feeds decoded text; returns the chunks completed by it, each event's id beside its chunk
   * (undefined for an event without one), and whether `[DONE]` arrived.
   */
  push(text: string): { chunks: unknown[]; ids: (number | undefined)[]; done: boolean }
}

export function createSseParser(): SseParser {
  let buffer = ''
  let done = false
  return {
    push(text) {
      const chunks: unknown[] = []
      const ids: (number | undefined)[] = []
      if (done) return { chunks, ids, done }
      buffer += text.replace(/\r\n?/g, '\n')
      let end: number
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const event = buffer.slice(0, end).split('\n')
        buffer = buffer.slice(end + 2)
        const id = event.find((line) => line.startsWith('id:'))?.slice(3)
        const data = event
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
          .join('\n')
        if (!data) continue
        if (data === '[DONE]') {
          done = true
          break
        }
        try {
          chunks.push(JSON.parse(data))
          ids.push(id && /^\s*\d+$/.test(id) ? Number(id) : undefined)
        } catch {
          // A malformed event is skipped; the rest of the reply still shows.
        }
      }
      return { chunks, ids, done }
    },
  }
}

/**
 * Reads a response body to its end (or `[DONE]`), handing each chunk over as it arrives, with
 * its event's id. Resolves with whether `[DONE]` was seen; rejects when the read fails (an abort
 * included).
 */
export async function readSse(
  body: ReadableStream<Uint8Array>,
  onChunk: (chunk: unknown, id: number | undefined) => void,
): Promise<boolean> {
  const parser = createSseParser()
  const decoder = new TextDecoder()
  const reader = body.getReader()
  try {
    for (;;) {
      const { value, done } = await reader.read()
      const text = done ? decoder.decode() : decoder.decode(value, { stream: true })
      const result = parser.push(done ? `${text}\n\n` : text)
      result.chunks.forEach((chunk, i) => onChunk(chunk, result.ids[i]))
      if (result.done) return true
      if (done) return false
    }
  } finally {
    reader.releaseLock()
  }
}
