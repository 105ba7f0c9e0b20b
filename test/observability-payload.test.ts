/**
 * The pure parts of observability: what a span may store of a payload (redacted, bounded), the
 * credential shapes caught without being known, and what tokens cost at a price.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { costUsd } from '../compute-host/observability/cost.ts'
import { MAX_PAYLOAD_CHARS, spanPayload } from '../compute-host/observability/span-payload.ts'
import { redactTokenShapes } from '../compute-host/observability/token-patterns.ts'
import { createSecretRedactor } from '../runtime/redaction.ts'

test('cost: cached input at the cache price, the rest at input and output prices', () => {
  const sonnet = { inputUsdPerMtok: 3, outputUsdPerMtok: 15, cacheReadUsdPerMtok: 0.3 }
  const usage = { inputTokens: 1000, cachedInputTokens: 800, outputTokens: 100 }
  assert.equal(costUsd(usage, sonnet), 0.00234)
  // No cache price: cached tokens cost as input.
  assert.equal(costUsd(usage, { ...sonnet, cacheReadUsdPerMtok: null }), 0.0045)
  // A gateway reporting more cached than input tokens is not charged below zero.
  assert.equal(costUsd({ ...usage, cachedInputTokens: 5000 }, sonnet), 0.0018)
})

test('credential shapes are redacted, ordinary text is kept', () => {
  const cases = [
    'key sk-abcdefghijklmnopqrstuvwx end',
    'token ghp_abcdefghijklmnopqrstuvwxyz0123 end',
    'slack xoxb-1234567890-abcdefghij end',
    'aws AKIAABCDEFGHIJKLMNOP end',
    'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U end',
    'header Authorization: Bearer abcdefghijklmnop1234 end',
    '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----',
  ]
  for (const text of cases) {
    const out = redactTokenShapes(text)
    assert.match(out, /\[REDACTED\]/, text)
    assert.ok(!out.includes('abcdefghij') && !out.includes('MIIEow'), out)
  }
  assert.equal(
    redactTokenShapes('see https://bob:hunter22@example.com/x'),
    'see https://bob:[REDACTED]@example.com/x',
  )
  const plain = 'a task-list with sk- prefixes and Bearer of news'
  assert.equal(redactTokenShapes(plain), plain)
})

test('a payload is serialized, redacted by the host redactor, then bounded', () => {
  const redactor = createSecretRedactor(['host-secret-value-123'])
  const redact = (t: string) => redactor.redact(t)
  assert.equal(spanPayload(undefined, redact), undefined)
  assert.equal(spanPayload({ a: 'host-secret-value-123' }, redact), '{"a":"[REDACTED]"}')
  const cyclic: Record<string, unknown> = {}
  cyclic.self = cyclic
  assert.equal(spanPayload(cyclic, redact), '[object Object]')
  const long = spanPayload('x'.repeat(MAX_PAYLOAD_CHARS * 2), redact)!
  assert.ok(long.length < MAX_PAYLOAD_CHARS + 20)
  assert.match(long, /…\[truncated\]$/)
  // A secret that straddles the bound is still removed whole.
  const straddling = `${'y'.repeat(MAX_PAYLOAD_CHARS - 5)}host-secret-value-123`
  assert.doesNotMatch(spanPayload(straddling, redact)!, /host-sec/)
})
