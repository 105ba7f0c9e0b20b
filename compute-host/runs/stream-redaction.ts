import type { UIMessageChunk } from 'ai'
import type { Redactor } from '../../runtime/redaction.ts'

/**
 * Redacts a UI-message stream on its way to the client. The model's text arrives in deltas and a
 * secret may be split across two of them, so each text part holds back the end of its redacted
 * text that could be the start of a secret (usually nothing) until more arrives or the part
 * ends: whatever is sent can no longer become part of a secret, and ordinary text is not delayed. Other chunks that carry model or tool data (tool input and
 * output, errors) are redacted whole. Activity parts pass as they are (the activity log redacted
 * them already).
 */
export function redactUiStream(
  redactor: Pick<Redactor, 'redact' | 'partialAtEnd'>,
): TransformStream<UIMessageChunk, UIMessageChunk> {
  const pending = new Map<string, string>()
  const release = (id: string, all: boolean): string => {
    const text = redactor.redact(pending.get(id) ?? '')
    const keep = all ? 0 : redactor.partialAtEnd(text)
    pending.set(id, text.slice(text.length - keep))
    return text.slice(0, text.length - keep)
  }
  return new TransformStream({
    transform(chunk, controller) {
      if (chunk.type === 'text-delta') {
        pending.set(chunk.id, (pending.get(chunk.id) ?? '') + chunk.delta)
        const delta = release(chunk.id, false)
        if (delta) controller.enqueue({ ...chunk, delta })
        return
      }
      if (chunk.type === 'text-end') {
        const delta = release(chunk.id, true)
        pending.delete(chunk.id)
        if (delta) controller.enqueue({ type: 'text-delta', id: chunk.id, delta })
        controller.enqueue(chunk)
        return
      }
      controller.enqueue(chunk.type === 'data-agentActivity' ? chunk : redactChunk(chunk, redactor))
    },
    flush(controller) {
      // A stream cut off mid-text (an abort) still gets the rest of what it was sent, redacted.
      for (const id of pending.keys()) {
        const delta = release(id, true)
        if (delta) controller.enqueue({ type: 'text-delta', id, delta })
      }
    },
  })
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
