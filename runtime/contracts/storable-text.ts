/**
 * PostgreSQL cannot store U+0000 in text or jsonb, and a lone UTF-16 surrogate has no UTF-8 form
 * (the driver would either fail or silently replace it). Input that is saved is checked with this
 * first, so a bad character gets a 400 naming the field instead of a turn lost after a 200.
 */
// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
const UNSTORABLE = new RegExp(`\u0000|${LONE_SURROGATE.source}`, 'g')

export function isStorable(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return !value.includes('\u0000') && !LONE_SURROGATE.test(value)
  if (depth > 256 || value === null || typeof value !== 'object') return true
  for (const [key, item] of Object.entries(value)) {
    if (!isStorable(key, depth + 1) || !isStorable(item, depth + 1)) return false
  }
  return true
}

export const UNSTORABLE_MESSAGE =
  'must not contain a NUL character (\\u0000) or an unpaired UTF-16 surrogate'

/**
 * Text popagent itself saves from elsewhere (a model's answer, an error, tool output): nothing to
 * refuse to anyone, so each unstorable character becomes U+FFFD. Without it one NUL in a task's
 * result made every attempt to record the result fail, and the task stayed running forever.
 */
export function toStorable(text: string): string {
  return text.replace(UNSTORABLE, '\ufffd')
}
