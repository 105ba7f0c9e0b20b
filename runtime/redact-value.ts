/**
 * The redactor applied to structured values: every string inside plain objects and arrays.
 * Dates, class instances and other values are kept as they are.
 */

type Redact = (text: string) => string

const plain = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype

/**
 * A redacted copy that shares every part that did not change: a value with no secret comes back
 * as the very same object, so a caller can tell "nothing to redact" by identity, and Mastra's
 * message list replaces only the messages that really changed.
 */
export function redactValue<T>(value: T, redact: Redact): T {
  if (typeof value === 'string') return redact(value) as T
  if (Array.isArray(value)) {
    const next = value.map((item) => redactValue(item, redact))
    return (next.some((item, i) => item !== value[i]) ? next : value) as T
  }
  if (plain(value)) {
    let changed = false
    const entries = Object.entries(value).map(([key, item]) => {
      const next = redactValue(item, redact)
      if (next !== item) changed = true
      return [key, next] as const
    })
    return (changed ? Object.fromEntries(entries) : value) as T
  }
  return value
}

/**
 * Redacts the strings of a plain object or array where they are. For a value that is handed on
 * by reference and cannot be replaced, such as a tool call's arguments between Mastra's
 * `beforeToolCall` hook and the tool's `execute`.
 */
export function redactInPlace(value: unknown, redact: Redact): void {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      if (typeof item === 'string') value[i] = redact(item)
      else redactInPlace(item, redact)
    }
  } else if (plain(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (typeof item === 'string') value[key] = redact(item)
      else redactInPlace(item, redact)
    }
  }
}
