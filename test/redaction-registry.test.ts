/**
 * The host's one redactor as a live registry: values set for an owner (a vault secret) are
 * redacted in every encoding the independent scanner knows (support/secret-forms.ts), including
 * base64 at byte offsets 1 and 2 and inside a stream split at any point; removing the owner
 * forgets them, while fixed secrets and other owners' values stay.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { redactUiStream } from '../compute-host/runs/stream-redaction.ts'
import { createSecretRedactor, REDACTED } from '../runtime/redaction.ts'
import { leakForms, leaksIn } from './support/secret-forms.ts'

const VALUES = ['plain-secret-value-123', 'q"uote\\back /+= ü🔑 space', 'Zm9vYmFyYmF6cXV4']

test('every leak form of an owned value is redacted, also inside longer encoded text', () => {
  const redactor = createSecretRedactor()
  VALUES.forEach((v, i) => redactor.set(`sec_${i}`, [v]))
  for (const value of VALUES) {
    for (const form of leakForms(value)) {
      const out = redactor.redact(`<${form}>`)
      assert.deepEqual(leaksIn(out, [value]), [], `${form} survived`)
      assert.ok(out.includes(REDACTED))
    }
    for (const prefix of ['', 'u:', 'ab:']) {
      const basic = Buffer.from(`${prefix}${value}`).toString('base64')
      assert.deepEqual(
        leaksIn(redactor.redact(basic), [value]),
        [],
        `base64 after ${prefix.length} bytes`,
      )
    }
  }
})

test('removing an owner forgets its values only; fixed secrets stay', () => {
  const redactor = createSecretRedactor(['fixed-host-token-xyz'])
  redactor.set('sec_a', ['owned-value-aaaaaa'])
  redactor.set('sec_b', ['owned-value-bbbbbb'])
  redactor.remove('sec_a')
  assert.equal(redactor.redact('owned-value-aaaaaa'), 'owned-value-aaaaaa')
  assert.equal(redactor.redact('owned-value-bbbbbb'), REDACTED)
  assert.equal(redactor.redact('fixed-host-token-xyz'), REDACTED)
  // A rotation replaces the owner's set: the old value is redacted only if passed again.
  redactor.set('sec_b', ['rotated-value-cccccc'])
  assert.equal(redactor.redact('owned-value-bbbbbb'), 'owned-value-bbbbbb')
  assert.equal(redactor.redact('rotated-value-cccccc'), REDACTED)
  // Values too short to redact safely are ignored rather than masking ordinary words.
  redactor.set('sec_short', ['abc'])
  assert.equal(redactor.redact('abc abc'), 'abc abc')
})

test('a value split across stream chunks at every point is never sent', async () => {
  const value = VALUES[1]!
  const redactor = createSecretRedactor()
  redactor.set('sec', [value])
  const text = `before ${value} after`
  for (let cut = 1; cut < text.length; cut++) {
    const out: string[] = []
    const stream = new ReadableStream({
      start(c) {
        c.enqueue({ type: 'text-start', id: 't' })
        c.enqueue({ type: 'text-delta', id: 't', delta: text.slice(0, cut) })
        c.enqueue({ type: 'text-delta', id: 't', delta: text.slice(cut) })
        c.enqueue({ type: 'text-end', id: 't' })
        c.close()
      },
    }).pipeThrough(redactUiStream(redactor))
    for await (const chunk of stream as unknown as AsyncIterable<{ type: string; delta?: string }>)
      if (chunk.type === 'text-delta') out.push(chunk.delta!)
    assert.equal(out.join(''), `before ${REDACTED} after`, `cut at ${cut}`)
  }
})
