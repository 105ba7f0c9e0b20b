/**
 * Replaces known secret values in text before it is logged, persisted or sent: the raw value and
 * the encodings it commonly leaks in (see `encodings` below).
 *
 * @example
 * const redact = createRedactor([config.apiKey])
 * log(redact(message))
 */
export const REDACTED = '[REDACTED]'

// Shorter values are too likely to match ordinary text to be redacted blindly.
const MIN_SECRET_LENGTH = 8

/**
 * The forms a value leaks in: raw, JSON-escaped (once and twice: a JSON string inside a JSON
 * string), percent-encoded (upper and lower case, `+` for spaces), hex in either case, and
 * base64 / base64url with and without padding. Base64 is also taken at byte offsets 1 and 2
 * (the value inside a longer encoded text, such as `user:secret` in Basic auth): there only the
 * 4-character groups made of the value's bytes alone are stable, so those are the needle.
 */
function encodings(secret: string): string[] {
  const bytes = new TextEncoder().encode(secret)
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
  const percent = encodeURIComponent(secret)
  const json = JSON.stringify(secret).slice(1, -1)
  const forms = [
    secret,
    secret.normalize('NFC'),
    secret.normalize('NFD'),
    json,
    JSON.stringify(json).slice(1, -1),
    percent,
    percent.replace(/%[0-9A-F]{2}/g, (p) => p.toLowerCase()),
    percent.replace(/%20/g, '+'),
    hex,
    hex.toUpperCase(),
  ]
  for (const offset of [0, 1, 2]) {
    const base64 = toBase64(new Uint8Array([...new Uint8Array(offset), ...bytes]))
    // Skip the groups that mix in the bytes before the value, keep whole groups only.
    const start = offset === 0 ? 0 : 4
    const stable = base64.slice(
      start,
      start + Math.floor((bytes.length - (offset ? 3 - offset : 0)) / 3) * 4,
    )
    if (offset === 0) forms.push(base64, base64.replace(/=+$/, ''))
    forms.push(stable, toUrl(stable))
    if (offset === 0) forms.push(toUrl(base64).replace(/=+$/, ''))
  }
  return forms
}

function toBase64(bytes: Uint8Array): string {
  let binary = ''
  for (const b of bytes) binary += String.fromCharCode(b)
  return btoa(binary)
}
const toUrl = (base64: string) => base64.replace(/\+/g, '-').replace(/\//g, '_')

/**
 * The host's one redactor: every place that logs, stores or sends text uses the same object, and
 * a secret added while the host runs (a vault entry, a generated key) is redacted everywhere
 * from the next call on.
 */
export type Redactor = {
  redact(text: string): string
  /** Adds fixed secrets (the host's own keys), kept for the life of the redactor. */
  add(...secrets: ReadonlyArray<string | undefined>): void
  /**
   * Sets the values redacted on behalf of `owner` (a vault secret's id), replacing the ones it
   * had: a rotated secret keeps its old value redacted only if the caller passes it again.
   */
  set(owner: string, values: ReadonlyArray<string>): void
  /** Forgets `owner`'s values (a deleted secret); values also added by others stay. */
  remove(owner: string): void
  /**
   * How many characters at the end of `text` could be the start of a secret that the next piece
   * completes: a stream redacted piece by piece holds back exactly these, and sends the rest at
   * once (usually all of it).
   */
  partialAtEnd(text: string): number
}

export function createSecretRedactor(secrets: ReadonlyArray<string | undefined> = []): Redactor {
  const fixed = new Set<string>()
  const owned = new Map<string, string[]>()
  let needles: string[] = []
  // Needles by their first character: the end of a text is only compared where one could start.
  let byFirst = new Map<string, string[]>()
  const usable = (s: string | undefined): s is string =>
    typeof s === 'string' && s.length >= MIN_SECRET_LENGTH
  const rebuild = () => {
    const all = new Set([...fixed, ...[...owned.values()].flat()])
    // Longest first, so a longer encoding is replaced whole.
    needles = [...new Set([...all].flatMap(encodings))]
      .filter((n) => n.length >= MIN_SECRET_LENGTH)
      .sort((a, b) => b.length - a.length)
    byFirst = new Map()
    for (const needle of needles)
      byFirst.set(needle[0]!, [...(byFirst.get(needle[0]!) ?? []), needle])
  }
  const add = (...more: ReadonlyArray<string | undefined>) => {
    const fresh = more.filter((s): s is string => usable(s) && !fixed.has(s))
    if (fresh.length === 0) return
    for (const secret of fresh) fixed.add(secret)
    rebuild()
  }
  add(...secrets)
  return {
    add,
    set(owner, values) {
      owned.set(owner, values.filter(usable))
      rebuild()
    },
    remove(owner) {
      if (owned.delete(owner)) rebuild()
    },
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
