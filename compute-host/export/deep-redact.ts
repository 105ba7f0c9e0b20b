/** Every string of a JSON value, keys included, through `redact`; the shape is kept. */
export function deepRedact(value: unknown, redact: (text: string) => string, depth = 0): unknown {
  if (typeof value === 'string') return redact(value)
  if (value === null || typeof value !== 'object') return value
  // Stored messages are bounded in depth by the API's validation; this only guards the stack.
  if (depth > 256) return '[too deep]'
  if (Array.isArray(value)) return value.map((item) => deepRedact(item, redact, depth + 1))
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [redact(k), deepRedact(v, redact, depth + 1)]),
  )
}
