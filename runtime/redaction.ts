/**
 * Replaces known secret values in text before it is logged, persisted or sent: the raw value and
 * the encodings it commonly leaks in (base64, base64url, hex, URL-encoding).
 *
 * @example
 * const redact = createRedactor([config.apiKey])
 * log(redact(message))
 */
export const REDACTED = '[REDACTED]'

// Shorter values are too likely to match ordinary text to be redacted blindly.
const MIN_SECRET_LENGTH = 8

function encodings(secret: string): string[] {
  const bytes = new TextEncoder().encode(secret)
  let binary = ''
  for (const b of bytes) binary += String.fromCharCode(b)
  const base64 = btoa(binary)
  const base64url = base64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
  return [
    secret,
    base64,
    base64.replace(/=+$/, ''),
    base64url,
    hex,
    hex.toUpperCase(),
    encodeURIComponent(secret),
  ]
}

/**
 * The host's one redactor: every place that logs, stores or sends text uses the same object, and
 * a secret added while the host runs (a vault entry, a generated key) is redacted everywhere
 * from the next call on.
 */
export type Redactor = {
  redact(text: string): string
  add(...secrets: ReadonlyArray<string | undefined>): void
  /**
   * How many characters at the end of `text` could be the start of a secret that the next piece
   * completes: a stream redacted piece by piece holds back exactly these, and sends the rest at
   * once (usually all of it).
   */
  partialAtEnd(text: string): number
}

export function createSecretRedactor(secrets: ReadonlyArray<string | undefined> = []): Redactor {
  const known = new Set<string>()
  let needles: string[] = []
  // Needles by their first character: the end of a text is only compared where one could start.
  let byFirst = new Map<string, string[]>()
  const add = (...more: ReadonlyArray<string | undefined>) => {
    const fresh = more.filter(
      (s): s is string => typeof s === 'string' && s.length >= MIN_SECRET_LENGTH && !known.has(s),
    )
    if (fresh.length === 0) return
    for (const secret of fresh) known.add(secret)
    // Longest first, so a longer encoding is replaced whole.
    needles = [...new Set([...known].flatMap(encodings))].sort((a, b) => b.length - a.length)
    byFirst = new Map()
    for (const needle of needles)
      byFirst.set(needle[0]!, [...(byFirst.get(needle[0]!) ?? []), needle])
  }
  add(...secrets)
  return {
    add,
    partialAtEnd(text) {
      const longest = needles[0]?.length ?? 0
      // From the furthest start a proper prefix can have to the last character.
      for (let at = Math.max(0, text.length - longest + 1); at < text.length; at++) {
        const candidates = byFirst.get(text[at]!)
        if (!candidates) continue
        const tail = text.slice(at)
        if (candidates.some((n) => n.length > tail.length && n.startsWith(tail))) {
          return tail.length
        }
      }
      return 0
    },
    redact(text) {
      let out = text
      for (const needle of needles) if (out.includes(needle)) out = out.split(needle).join(REDACTED)
      return out
    },
  }
}

/** A fixed redactor as a plain function, for callers with a known set of secrets. */
export function createRedactor(
  secrets: ReadonlyArray<string | undefined>,
): (text: string) => string {
  const redactor = createSecretRedactor(secrets)
  return (text) => redactor.redact(text)
}
