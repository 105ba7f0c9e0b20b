/**
 * Mastra logs failed model calls itself ("Upstream LLM API error", "Error in LLM execution", the
 * observer's failures), attaching the provider's whole error: request body, response body, the
 * message a provider wrote (which may name the key it refused). Those lines must reach a host's
 * output only through its redacting JSON logger, never through Mastra's console logger.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { observeSoon, startCanaryHost, type CanaryHost } from './support/canary-host.ts'
import { until } from './support/until.ts'

describe('Mastra’s log lines in a host process', () => {
  let host: CanaryHost
  before(async () => {
    host = await startCanaryHost()
  })
  after(() => host?.stop())

  test('model errors quoting secrets reach stdout/stderr only redacted, as JSON lines', async () => {
    await observeSoon(host)
    let observerFailures = 0
    let run: 'echo-key' | 'drop' = 'echo-key'
    host.respond((kind) => {
      if (kind === 'observer') {
        // The first observation fails the way a provider echoing the key fails, then recovers.
        if (observerFailures++ === 0)
          return { status: 500, message: `observer refused ${host.key}, ${host.token}` }
        return { text: '<observations>\n- the user wrote many words\n</observations>' }
      }
      if (run === 'echo-key')
        return { status: 401, message: `Incorrect API key: ${host.key} (${host.token})` }
      return { text: ['a', 'b', 'c'], dropAfterChunks: 1 }
    })
    const sessionId = await host.newSession()
    // Long enough for Observational Memory to observe before the run's own model call.
    assert.equal(await host.turn(sessionId, 'many words '.repeat(1_500)), 200)
    run = 'drop'
    assert.equal(await host.turn(sessionId, 'and a stream that breaks'), 200)

    const errors = () => host.mastraLines().filter((l) => l.level === 'error')
    const logged = () => ({
      observer: errors().some((l) => /observer/i.test(String(l.message))),
      echoedKey: errors().some((l) => l.statusCode === 401),
      brokenStream: errors().some(
        (l) => l.errorMessage === 'Failed to process successful response',
      ),
    })
    // The lines may trail the turns a little; a host that printed them elsewhere never logs them.
    await until(() => Object.values(logged()).every(Boolean), 10_000, 'the host log').catch(
      () => {},
    )
    assert.equal(host.secretHits(), 0, 'a secret reached the host’s output')
    assert.deepEqual(host.foreignLines(), [], 'something wrote past the host logger')
    assert.deepEqual(logged(), { observer: true, echoedKey: true, brokenStream: true })
    const echoed = errors().find((l) => l.statusCode === 401)!
    assert.equal(echoed.errorMessage, 'Incorrect API key: [REDACTED] ([REDACTED])')
  })
})
