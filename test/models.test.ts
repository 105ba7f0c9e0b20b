import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createModelCatalog } from '../compute-host/gateway/catalog.ts'
import { createTestApp } from './support/app.ts'
import { startScriptedGateway } from './support/scripted-gateway.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { errorJson, okJson, typedClient } from './support/typed-client.ts'

const CATALOG = [
  { id: 'cx/gpt-5.3-codex-spark', contextWindow: 128_000 },
  { id: 'auto/coding:free', contextWindow: 64_000 },
  { id: 'remote/no-window' },
]

describe('GET /api/models and model checks with the gateway up', () => {
  let stack: TestStack
  before(async () => (stack = await startTestStack({ models: CATALOG })))
  after(() => stack.stop())

  test('merges the live catalog with the persisted default', async () => {
    const { api } = typedClient(stack.edge())
    const body = await okJson(await api.models.$get(), 200)
    const settings = await okJson(await api.settings['agent-runtime'].$get())
    assert.equal(body.defaultModel, settings.effectiveDefaultModel)
    // The seeded default is the local route, which this catalog lacks: it comes first.
    assert.deepEqual(body.models, [
      settings.effectiveDefaultModel,
      'cx/gpt-5.3-codex-spark',
      'auto/coding:free',
      'remote/no-window',
    ])
    assert.deepEqual(body.contextWindows, {
      'cx/gpt-5.3-codex-spark': 128_000,
      'auto/coding:free': 64_000,
    })
    assert.equal(body.warning, undefined)
  })

  test('the default is listed once when the catalog has it', async () => {
    const { api } = typedClient(stack.edge())
    const patch = await api.settings['agent-runtime'].$patch({
      json: { modelSource: 'free-coding-auto' },
    })
    assert.equal(patch.status, 200)
    try {
      const body = await okJson(await api.models.$get())
      assert.equal(body.defaultModel, 'auto/coding:free')
      assert.equal(body.models.filter((m) => m === 'auto/coding:free').length, 1)
    } finally {
      await api.settings['agent-runtime'].$patch({ json: { modelSource: 'configured' } })
    }
  })

  test('mutation routes refuse model ids the catalog does not list, naming them', async () => {
    const { api } = typedClient(stack.edge())
    const runtime = api.settings['agent-runtime']
    const settings = await runtime.$patch({ json: { configuredModel: 'made-up/model' } })
    const body = await errorJson(settings, 400)
    assert.equal(body.error.code, 'UNKNOWN_MODEL')
    assert.match(body.error.message, /made-up\/model/)
    const unchanged = await okJson(await runtime.$get())
    assert.notEqual(unchanged.configuredModel, 'made-up/model')

    const implementer = (modelOverride: string | null) =>
      api.agents[':id'].$patch({ param: { id: 'implementer' }, json: { modelOverride } })
    const agent = await implementer('also/unknown')
    assert.equal((await errorJson(agent, 400)).error.code, 'UNKNOWN_MODEL')

    const known = await implementer('cx/gpt-5.3-codex-spark')
    assert.equal((await okJson(known, 200)).modelOverride, 'cx/gpt-5.3-codex-spark')
    const cleared = await implementer(null)
    assert.equal((await okJson(cleared)).modelOverride, null)
  })
})

describe('GET /api/models and model checks with the catalog down', () => {
  let stack: TestStack
  before(async () => {
    stack = await startTestStack({ models: CATALOG })
    stack.gateway.failModels(503)
  })
  after(() => stack.stop())

  test('the route still answers with the default and a warning', async () => {
    const body = await okJson(await typedClient(stack.edge()).api.models.$get(), 200)
    assert.deepEqual(body.models, [body.defaultModel])
    assert.deepEqual(body.contextWindows, {})
    assert.match(body.warning ?? '', /unavailable.*503/)
  })

  test('mutations fail open: an unchecked model id is accepted', async () => {
    const res = await typedClient(stack.edge()).api.settings['agent-runtime'].$patch({
      json: { configuredModel: 'unverified/model' },
    })
    assert.equal((await okJson(res, 200)).configuredModel, 'unverified/model')
  })

  test('a stopped compute host also fails open for /api/models', async () => {
    const edge = createTestApp({
      db: stack.host.resources.databases.application.db,
      hostUrl: 'http://127.0.0.1:9',
    })
    const body = await okJson(await typedClient(edge).api.models.$get())
    assert.deepEqual(body.models, [body.defaultModel])
    assert.match(body.warning ?? '', /compute host/)
  })
})

describe('model catalog cache', () => {
  test('serves the last good catalog beside the error when a refresh fails', async () => {
    const gateway = await startScriptedGateway({ models: [{ id: 'a/1', contextWindow: 1_000 }] })
    try {
      const catalog = createModelCatalog({ url: gateway.url, ttlMs: 0, retryMs: 0 })
      const first = await catalog.read()
      assert.deepEqual(first.catalog?.models, [{ id: 'a/1', contextWindow: 1_000 }])
      assert.equal(first.error, undefined)
      gateway.failModels(502)
      const stale = await catalog.read()
      assert.deepEqual(stale.catalog?.models, first.catalog?.models)
      assert.match(stale.error ?? '', /502/)
      gateway.failModels(undefined)
      gateway.setModels([{ id: 'b/2' }])
      const healed = await catalog.read()
      assert.deepEqual(healed.catalog?.models, [{ id: 'b/2', contextWindow: null }])
      assert.equal(healed.error, undefined)
    } finally {
      await gateway.close()
    }
  })

  test('caches within the period and shares one fetch between concurrent readers', async () => {
    const gateway = await startScriptedGateway()
    try {
      const catalog = createModelCatalog({ url: gateway.url, ttlMs: 60_000 })
      await Promise.all([catalog.read(), catalog.read(), catalog.read()])
      await catalog.read()
      const fetches = gateway.requests.filter((r) => r.path === '/v1/models').length
      assert.equal(fetches, 1)
    } finally {
      await gateway.close()
    }
  })

  test('an unreachable gateway with no catalog yet is an error, not an empty catalog', async () => {
    const catalog = createModelCatalog({ url: 'http://127.0.0.1:9/v1' })
    const read = await catalog.read()
    assert.equal(read.catalog, null)
    assert.match(read.error ?? '', /cannot reach the model gateway/)
  })
})
