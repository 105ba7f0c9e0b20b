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

export function createRedactor(
  secrets: ReadonlyArray<string | undefined>,
): (text: string) => string {
  const needles = [
    ...new Set(
      secrets
        .filter((s): s is string => typeof s === 'string' && s.length >= MIN_SECRET_LENGTH)
        .flatMap(encodings),
    ),
  ].sort((a, b) => b.length - a.length) // longest first, so a longer encoding is replaced whole
  if (needles.length === 0) return (text) => text
  return (text) => {
    let out = text
    for (const needle of needles) if (out.includes(needle)) out = out.split(needle).join(REDACTED)
    return out
  }
}
