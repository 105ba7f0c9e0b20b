import type { UIMessageChunk } from 'ai'
import type { Redactor } from '../../runtime/redaction.ts'

/**
 * Redacts a UI-message stream on its way to the client. The model's text, its reasoning and the
 * arguments of a tool call it is writing arrive in deltas, and a secret may be split across two
 * of them, so each such part holds back the end of its redacted text that could be the start of a
 * secret (usually nothing) until more arrives or the part ends: whatever is sent can no longer
 * become part of a secret, and ordinary text is not delayed. Other chunks that carry model or
 * tool data (tool input and output, errors) are redacted whole. Activity parts pass as they are
 * (the activity log redacted them already).
 */
export function redactUiStream(
  redactor: Pick<Redactor, 'redact' | 'partialAtEnd'>,
): TransformStream<UIMessageChunk, UIMessageChunk> {
  const pending = new Map<string, { text: string; delta: (text: string) => UIMessageChunk }>()
  const release = (key: string, all: boolean): UIMessageChunk | undefined => {
    const part = pending.get(key)
    if (!part) return undefined
    const text = redactor.redact(part.text)
    const keep = all ? 0 : redactor.partialAtEnd(text)
    part.text = text.slice(text.length - keep)
    if (all) pending.delete(key)
    const ready = text.slice(0, text.length - keep)
    return ready ? part.delta(ready) : undefined
  }
  return new TransformStream({
    transform(chunk, controller) {
      const held = heldPart(chunk)
      if (held) {
        const part = pending.get(held.key) ?? { text: '', delta: held.delta }
        part.text += held.text
        pending.set(held.key, part)
        const delta = release(held.key, false)
        if (delta) controller.enqueue(delta)
        return
      }
      const ended = endedPart(chunk)
      if (ended) {
        const delta = release(ended, true)
        if (delta) controller.enqueue(delta)
      }
      controller.enqueue(chunk.type === 'data-agentActivity' ? chunk : redactChunk(chunk, redactor))
    },
    flush(controller) {
      // A stream cut off mid-part (an abort) still gets the rest of what it was sent, redacted.
      for (const key of [...pending.keys()]) {
        const delta = release(key, true)
        if (delta) controller.enqueue(delta)
      }
    },
  })
}

/** A delta whose text is held back: its part's key, its text, and how to send text of it. */
function heldPart(chunk: UIMessageChunk) {
  switch (chunk.type) {
    case 'text-delta':
    case 'reasoning-delta': {
      const { type, id } = chunk
      const delta = (text: string) => ({ type, id, delta: text }) as UIMessageChunk
      return { key: `${type}:${id}`, text: chunk.delta, delta }
    }
    case 'tool-input-delta': {
      const { toolCallId } = chunk
      const delta = (text: string): UIMessageChunk => ({
        type: 'tool-input-delta',
        toolCallId,
        inputTextDelta: text,
      })
      return { key: `tool-input-delta:${toolCallId}`, text: chunk.inputTextDelta, delta }
    }
    default:
      return undefined
  }
}

/** The key of the held part a chunk ends: what was held back goes out before the chunk. */
function endedPart(chunk: UIMessageChunk): string | undefined {
  switch (chunk.type) {
    case 'text-end':
      return `text-delta:${chunk.id}`
    case 'reasoning-end':
      return `reasoning-delta:${chunk.id}`
    case 'tool-input-available':
    case 'tool-input-error':
      return `tool-input-delta:${chunk.toolCallId}`
    default:
      return undefined
  }
}

/**
 * A chunk or message with every secret replaced in its serialized form; a result that no longer
 * parses (a secret that spanned JSON syntax) becomes a plain notice rather than being sent.
 */
export function redactChunk<T>(value: T, redactor: Pick<Redactor, 'redact'>): T {
  const json = JSON.stringify(value)
  const redacted = redactor.redact(json)
  if (redacted === json) return value
  try {
    return JSON.parse(redacted) as T
  } catch {
    return { type: 'error', errorText: 'a part of this answer held a secret and was withheld' } as T
  }
}
