/**
 * The host's language models are built once per model id and reused by every run's agents; a
 * kept local model still takes an admission slot for each stream, and the kept set is bounded.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { streamText } from 'ai'
import { createAdmissionQueue } from '../compute-host/models/admission-queue.ts'
import { createGatewayModels } from '../compute-host/models/gateway-models.ts'
import { createLocalRouteMatcher } from '../compute-host/models/local-routes.ts'
import { startScriptedGateway } from './support/scripted-gateway.ts'

test('one model per id, reused; the kept models are bounded', () => {
  const models = createGatewayModels({
    url: 'http://127.0.0.1:1/v1',
    localModels: { queue: createAdmissionQueue(1), isLocal: () => false },
  })
  const first = models.languageModel('cloud/a')
  assert.equal(models.languageModel('cloud/a'), first)
  assert.notEqual(models.languageModel('cloud/b'), first)
  assert.equal(models.languageModel('cloud/b').modelId, 'cloud/b')
  for (let i = 0; i < 40; i++) models.languageModel(`cloud/other-${i}`)
  assert.notEqual(models.languageModel('cloud/a'), first, 'the oldest was still kept')
})

test('a reused local model takes a slot for each of its streams, held until the stream ends', async () => {
  const gateway = await startScriptedGateway()
  const queue = createAdmissionQueue(1)
  const models = createGatewayModels({
    url: gateway.url,
    localModels: { queue, isLocal: createLocalRouteMatcher(['titan/']) },
  })
  let peak = 0
  const sampler = setInterval(() => (peak = Math.max(peak, gateway.active())), 2)
  try {
    const model = models.languageModel('titan/x')
    assert.equal(models.languageModel('titan/x'), model)
    const texts = await Promise.all(
      [1, 2, 3].map(async (i) => {
        gateway.enqueue({ text: [`reply ${i} `, 'ends'], chunkDelayMs: 20 })
        return streamText({ model: models.languageModel('titan/x'), prompt: `q${i}` }).text
      }),
    )
    assert.deepEqual(texts.toSorted(), ['reply 1 ends', 'reply 2 ends', 'reply 3 ends'])
  } finally {
    clearInterval(sampler)
    await gateway.close()
  }
  assert.equal(peak, 1, 'two streams of the kept local model ran at once')
  assert.deepEqual(queue.stats(), { limit: 1, active: 0, queued: 0 })
})
