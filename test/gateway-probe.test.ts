import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createGatewayProbe } from '../compute-host/gateway/probe.ts'
import { startScriptedGateway } from './support/scripted-gateway.ts'

test('the gateway probe reports reachable, failing and absent gateways', async () => {
  const gateway = await startScriptedGateway({ apiKey: 'gateway-key-123456' })
  try {
    const ok = await createGatewayProbe({ url: gateway.url, apiKey: 'gateway-key-123456' }).status()
    assert.equal(ok.reachable, true)
    assert.equal(gateway.requests.at(-1)?.headers.authorization, 'Bearer gateway-key-123456')
    const badKey = await createGatewayProbe({ url: gateway.url, apiKey: 'wrong' }).status()
    assert.deepEqual([badKey.reachable, badKey.error], [false, 'gateway answered 401'])
  } finally {
    await gateway.close()
  }
  const gone = await createGatewayProbe({ url: gateway.url }).status()
  assert.equal(gone.reachable, false)
  assert.match(gone.error!, /cannot reach the model gateway/)
})
