import assert from 'node:assert/strict'
import { test } from 'node:test'
import { errorMessage } from '../runtime/error-message.ts'

test('an Error gives its message, anything else its string form', () => {
  assert.equal(errorMessage(new TypeError('fetch failed')), 'fetch failed')
  assert.equal(errorMessage('plain text'), 'plain text')
  assert.equal(errorMessage(42), '42')
  assert.equal(errorMessage(undefined), 'undefined')
  assert.equal(errorMessage({ code: 'X' }), '[object Object]')
})
