/**
 * Canary secrets: random, recognisable strings put where real secrets go, and every form in
 * which one could leak — raw, JSON-escaped, URL-encoded, hex in either case, base64 and
 * base64url at each of the three byte alignments (a secret inside `Basic user:secret` or a
 * longer encoded blob shifts its base64 text).
 */
import { randomBytes } from 'node:crypto'

export type Canaries = {
  gatewayKey: string
  apiKey: string
  hostToken: string
  databasePassword: string
}

export function makeCanaries(): Canaries {
  const make = (name: string) => `canary${name}${randomBytes(12).toString('hex')}Zq`
  return {
    gatewayKey: make('Gateway'),
    apiKey: make('ApiKey'),
    hostToken: make('HostToken'),
    databasePassword: make('DbPassword'),
  }
}

export type Form = { name: string; text: string; ignoreCase?: boolean }

export function formsOf(secret: string): Form[] {
  const bytes = Buffer.from(secret, 'utf8')
  const forms: Form[] = [
    { name: 'raw', text: secret },
    { name: 'json-escaped', text: JSON.stringify(secret).slice(1, -1) },
    { name: 'url-encoded', text: encodeURIComponent(secret) },
    { name: 'hex', text: bytes.toString('hex'), ignoreCase: true },
  ]
  for (const shift of [0, 1, 2]) {
    for (const encoding of ['base64', 'base64url'] as const) {
      const text = Buffer.concat([Buffer.alloc(shift, 0x20), bytes]).toString(encoding)
      // Drop the characters that depend on the bytes around the secret.
      const core = text.slice(shift ? 4 : 0, text.length - 4)
      forms.push({ name: `${encoding} (offset ${shift})`, text: core })
    }
  }
  const seen = new Set<string>()
  return forms.filter((f) => !seen.has(f.text) && seen.add(f.text))
}

export type Hit = { canary: string; form: string; source: string; excerpt: string }

/** Every place a form of a canary occurs in `text`. */
export function scan(canaries: Canaries, source: string, text: string): Hit[] {
  const hits: Hit[] = []
  const lower = text.toLowerCase()
  for (const [canary, secret] of Object.entries(canaries)) {
    for (const form of formsOf(secret)) {
      const at = form.ignoreCase ? lower.indexOf(form.text.toLowerCase()) : text.indexOf(form.text)
      if (at === -1) continue
      const excerpt = text.slice(Math.max(0, at - 80), at + form.text.length + 40)
      hits.push({ canary, form: form.name, source, excerpt })
    }
  }
  return hits
}
