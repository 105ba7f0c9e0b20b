/**
 * Reads an AI SDK UI-message stream (server-sent events) into its chunks, as a client would,
 * stopping at `[DONE]` or the end of the body. `onChunk` sees each chunk as it arrives.
 */
export async function readUiStream(
  response: Response,
  onChunk: (chunk: any) => void = () => {},
): Promise<any[]> {
  const chunks: any[] = []
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    buffer += value
    let end: number
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const event = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      for (const line of event.split('\n')) {
        if (!line.startsWith('data: ')) continue
        const data = line.slice(6)
        if (data === '[DONE]') return chunks
        const chunk = JSON.parse(data)
        chunks.push(chunk)
        onChunk(chunk)
      }
    }
  }
  return chunks
}

/** The concatenated text deltas of a stream's chunks. */
export const streamedText = (chunks: any[]) =>
  chunks
    .filter((c) => c.type === 'text-delta')
    .map((c) => c.delta)
    .join('')

/** One server-sent event: its `id:` (absent when it has none) and its `data:`. */
export type SseEvent = { id?: number; data: string }

/**
 * Reads a stream's server-sent events with their ids, as a resuming client must (the last `id:`
 * received is where it resumes), to `[DONE]` (included) or the end of the body.
 */
export async function readSseEvents(
  response: Response,
  onEvent: (event: SseEvent) => void = () => {},
): Promise<SseEvent[]> {
  const events: SseEvent[] = []
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return events
    buffer += value
    let end: number
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const lines = buffer.slice(0, end).split('\n')
      buffer = buffer.slice(end + 2)
      const id = lines.find((l) => l.startsWith('id: '))?.slice(4)
      const data = lines.find((l) => l.startsWith('data: '))?.slice(6)
      if (data === undefined) continue
      const event: SseEvent = { ...(id !== undefined && { id: Number(id) }), data }
      events.push(event)
      onEvent(event)
      if (data === '[DONE]') {
        await reader.cancel()
        return events
      }
    }
  }
}
