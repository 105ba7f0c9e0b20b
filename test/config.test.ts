import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseHostEnv } from '../compute-host/env.ts'
import { parseEdgeConfig } from '../handlers/config.ts'

test('the host env schema applies defaults and lists every problem at once', () => {
  const env = parseHostEnv({})
  assert.equal(env.POPAGENT_DATA_DIR, './data')
  assert.equal(env.PORT, 3000)
  assert.equal(env.DATABASE_URL, undefined)
  assert.throws(
    () => parseHostEnv({ PORT: 'x', POPAGENT_HOST_TOKEN: 'short', NINEROUTER_URL: 'not a url' }),
    (e: Error) =>
      /PORT/.test(e.message) &&
      /POPAGENT_HOST_TOKEN/.test(e.message) &&
      /NINEROUTER_URL/.test(e.message),
  )
})

test('observability may not share the application database', () => {
  assert.throws(
    () =>
      parseHostEnv({
        DATABASE_URL: 'postgres://a/b',
        OBSERVABILITY_DATABASE_URL: 'postgres://a/b',
      }),
    /OBSERVABILITY_DATABASE_URL: must name a different database/,
  )
})

test('empty variables count as unset', () => {
  assert.equal(parseHostEnv({ DATABASE_URL: '' }).DATABASE_URL, undefined)
})

test('the edge config is parsed once per source and rejects short keys', () => {
  const source = { POPAGENT_HOST_TOKEN: 'h'.repeat(20), POPAGENT_API_KEY: 'k'.repeat(20) }
  assert.equal(parseEdgeConfig(source), parseEdgeConfig(source))
  assert.throws(
    () => parseEdgeConfig({ POPAGENT_HOST_TOKEN: 'h'.repeat(20), POPAGENT_API_KEY: 'short' }),
    /POPAGENT_API_KEY/,
  )
  assert.throws(() => parseEdgeConfig({}), /POPAGENT_HOST_TOKEN/)
})
