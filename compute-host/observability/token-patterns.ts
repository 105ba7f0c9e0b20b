/**
 * Credentials recognisable by their shape, for text the host's redactor cannot know in advance: a
 * key a model echoed, a token in a tool's output or a fetched page. The redactor removes the
 * values the host holds; these catch the rest before a span or log line is stored.
 */
const PATTERNS: readonly RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{12,}/gi,
]

// The password of a URL's user info (`https://user:pass@host`), keeping scheme, user and host.
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+):[^\s@/]+@/gi

export function redactTokenShapes(text: string): string {
  let out = text
  for (const pattern of PATTERNS) {
    out = out.replace(pattern, (match, scheme?: string) =>
      typeof scheme === 'string' && /^(bearer|basic)$/i.test(scheme)
        ? `${scheme} [REDACTED]`
        : '[REDACTED]',
    )
  }
  return out.replace(URL_PASSWORD, '$1:[REDACTED]@')
}
