import { redactTokenShapes } from './token-patterns.ts'

/** The most characters of one payload (a tool's input, a model's answer) a span keeps. */
export const MAX_PAYLOAD_CHARS = 16_384

const TRUNCATED = ' …[truncated]'

/**
 * What a span may store of a payload: serialized, cleaned by the host's redactor and the token
 * shapes, then cut to a bound. Redaction runs before the cut so a secret straddling the bound is
 * still recognised whole. Payloads are hostile (model output, tool results, web pages), so the
 * result is always a plain string: nothing of its structure reaches the storage as keys.
 */
export function spanPayload(
  value: unknown,
  redact: (text: string) => string,
  maxChars = MAX_PAYLOAD_CHARS,
): string | undefined {
  if (value === undefined || value === null) return undefined
  const text = redactTokenShapes(redact(serialize(value)))
  return text.length > maxChars ? `${text.slice(0, maxChars)}${TRUNCATED}` : text
}

function serialize(value: unknown): string {
  if (typeof value === 'string') return value
  if (value instanceof Error) return value.message
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    // Cycles, BigInt: what it is, never a crash on the run path.
    return Object.prototype.toString.call(value)
  }
}
