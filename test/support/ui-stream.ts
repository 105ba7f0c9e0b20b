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
