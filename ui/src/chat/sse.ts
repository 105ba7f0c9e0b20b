/**
 * Server-sent events → UI-message chunks: `data: {json}` events separated by a blank line, until
 * `data: [DONE]`. Comment lines (heartbeats) and other fields are skipped. No DOM, no `ai`.
 */

export type SseParser = {
  /** Feeds decoded text; returns the chunks completed by it and whether `[DONE]` arrived. */
  push(text: string): { chunks: unknown[]; done: boolean }
}

export function createSseParser(): SseParser {
  let buffer = ''
  let done = false
  return {
    push(text) {
      const chunks: unknown[] = []
      if (done) return { chunks, done }
      buffer += text.replace(/\r\n?/g, '\n')
      let end: number
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const event = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const data = event
          .split('\n')
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
        } catch {
          // A malformed event is skipped; the rest of the reply still shows.
        }
      }
      return { chunks, done }
    },
  }
}

/**
 * Reads a response body to its end (or `[DONE]`), handing each chunk over as it arrives. Resolves
 * with whether `[DONE]` was seen; rejects when the read fails (an abort included).
 */
export async function readSse(
  body: ReadableStream<Uint8Array>,
  onChunk: (chunk: unknown) => void,
): Promise<boolean> {
  const parser = createSseParser()
  const decoder = new TextDecoder()
  const reader = body.getReader()
  try {
    for (;;) {
      const { value, done } = await reader.read()
      const text = done ? decoder.decode() : decoder.decode(value, { stream: true })
      const result = parser.push(done ? `${text}\n\n` : text)
      for (const chunk of result.chunks) onChunk(chunk)
      if (result.done) return true
      if (done) return false
    }
  } finally {
    reader.releaseLock()
  }
}
