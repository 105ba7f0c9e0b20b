import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createId, isId, randomHex, SessionId } from '../runtime/ids.ts'
import { createRedactor, REDACTED } from '../runtime/redaction.ts'

test('ids carry their kind and sort by creation time', () => {
  const a = createId('session', 1_700_000_000_000)
  const b = createId('session', 1_700_000_000_001)
  assert.match(a, /^ses_[0-9A-Z]{26}$/)
  assert.ok(a < b)
  assert.ok(isId('session', a))
  assert.ok(!isId('workspace', a), 'a session id is not a workspace id')
  assert.ok(isId('workspace', 'wsp_default'))
  assert.ok(!SessionId.safeParse('ses_../../etc').success)
  assert.ok(!SessionId.safeParse('ses_').success)
})

test('ids and trace ids drawn a pool at a time never repeat, across many refills of the pool', () => {
  // 20,000 ids use 320 KB of random bytes: the 4 KB pool is drawn again about 80 times.
  const ids = Array.from({ length: 20_000 }, () => createId('turn', 0))
  assert.equal(new Set(ids).size, ids.length)
  assert.ok(ids.every((id) => isId('turn', id)))
  // Same millisecond, so the random part alone tells them apart, and it is not one repeated value.
  assert.ok(new Set(ids.map((id) => id.slice(-16, -15))).size > 16, 'random characters vary')
  const traces = Array.from({ length: 5_000 }, () => randomHex(16))
  assert.equal(new Set(traces).size, traces.length)
  assert.ok(traces.every((t) => /^[0-9a-f]{32}$/.test(t)))
  assert.match(randomHex(8), /^[0-9a-f]{16}$/)
})

test('the redactor removes raw and encoded forms of every secret', () => {
  const secret = 'sk-live/very+secret=value'
  const redact = createRedactor([secret, undefined, 'short'])
  const bytes = new TextEncoder().encode(secret)
  const forms = [
    secret,
    Buffer.from(bytes).toString('base64'),
    Buffer.from(bytes).toString('base64url'),
    Buffer.from(bytes).toString('hex'),
    Buffer.from(bytes).toString('hex').toUpperCase(),
    encodeURIComponent(secret),
  ]
  for (const form of forms) {
    const out = redact(`before ${form} after`)
    assert.equal(out, `before ${REDACTED} after`, `form ${form}`)
  }
  assert.equal(redact('short stays'), 'short stays', 'values under 8 characters are not redacted')
})
