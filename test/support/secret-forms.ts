/**
 * The forms a secret value can leak in, built with Node's own encoders rather than the
 * redactor's code (runtime/redaction.ts), so a scan with these is an independent check of it:
 * raw, JSON-escaped, percent-encoded (both cases, `+` for space), hex (both cases), and base64
 * and base64url at byte offsets 0, 1 and 2, with and without padding.
 */
export function leakForms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8')
  const percent = encodeURIComponent(value)
  const forms = new Set([
    value,
    JSON.stringify(value).slice(1, -1),
    percent,
    percent.replace(/%[0-9A-F]{2}/g, (p) => p.toLowerCase()),
    percent.replace(/%20/g, '+'),
    bytes.toString('hex'),
    bytes.toString('hex').toUpperCase(),
  ])
  for (let offset = 0; offset < 3; offset++) {
    for (const encoding of ['base64', 'base64url'] as const) {
      const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString(encoding)
      // Characters that depend only on the value's bytes: skip the first group at an offset,
      // and the last group, which depends on what follows in a longer text.
      const from = offset === 0 ? 0 : 4
      const whole = Math.floor((bytes.length - (offset ? 3 - offset : 0)) / 3) * 4
      forms.add(encoded.slice(from, from + whole))
      if (offset === 0) forms.add(encoded).add(encoded.replace(/=+$/, ''))
    }
  }
  return [...forms].filter((f) => f.length >= 8)
}

/** Every form of every value found in `text`, as `form-of-value` labels (empty when clean). */
export function leaksIn(text: string, values: readonly string[]): string[] {
  return values.flatMap((value, i) =>
    leakForms(value)
      .filter((form) => text.includes(form))
      .map((form) => `value ${i} as ${form.slice(0, 12)}…`),
  )
}
