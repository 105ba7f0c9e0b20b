/**
 * The compute host answers before its engines (Mastra, agents, runners) have loaded: health at
 * once, saying they are starting, and the model catalog at once too; every other route waits for
 * them and then runs; a request without the host token is refused without waiting; engines that
 * fail make the waiting routes fail and health say so. And the host's app, its composition root
 * and `popagent start` load without Mastra or the AI SDK, which is what lets a restart be healthy
 * before they load.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { after, before, describe, test } from 'node:test'
import { createEngineHandlers } from '../compute-host/host-handlers.ts'
import { createHostApp, type ReadyEngines } from '../compute-host/server.ts'
import { CronTimezone, HostHealth, HostModels, hostRoutes } from '../runtime/contracts/host-api.ts'
import { startTestStack, type TestStack } from './support/stack.ts'

const TOKEN = 'engines-test-token-0123456789abcdef'
const MODEL = 'remote/listed'
const auth = { authorization: `Bearer ${TOKEN}` }

describe('a host whose engines are still loading', () => {
  let stack: TestStack
  before(async () => {
    stack = await startTestStack({ models: [{ id: MODEL }] })
  })
  after(() => stack.stop())

  const deferred = () => {
    let settle!: { resolve: (e: ReadyEngines) => void; reject: (error: Error) => void }
    const promise = new Promise<ReadyEngines>((resolve, reject) => (settle = { resolve, reject }))
    return { promise, ...settle }
  }
  const health = async (app: ReturnType<typeof createHostApp>) => {
    const res = await app.request(hostRoutes.health.path, { headers: auth })
    assert.equal(res.status, 200)
    return HostHealth.parse(await res.json())
  }

  test('health answers at once; another route waits for the engines, then runs', async () => {
    const engines = deferred()
    const app = createHostApp(stack.host.resources, engines.promise, TOKEN)
    const early = await health(app)
    assert.equal(early.engines, 'starting')
    assert.equal(early.sandbox, null, 'the sandbox self-test runs with the engines')
    // The catalog comes from the core: the UI's first read does not wait for Mastra.
    const models = await app.request(hostRoutes.models.path, { headers: auth })
    assert.equal(models.status, 200)
    assert.deepEqual(
      HostModels.parse(await models.json()).catalog?.models.map((m) => m.id),
      [MODEL],
    )

    let answered = false
    const waiting = Promise.resolve(
      app.request(hostRoutes.cronTimezone.path, { headers: auth }),
    ).then((res) => {
      answered = true
      return res
    })
    await new Promise((resolve) => setTimeout(resolve, 100))
    assert.equal(answered, false, 'the route answered before its engines were ready')

    const { resources } = stack.host
    engines.resolve({ resources, handlers: createEngineHandlers(resources) })
    const res = await waiting
    assert.equal(res.status, 200)
    assert.equal(typeof CronTimezone.parse(await res.json()).timezone, 'string')
    const ready = await health(app)
    assert.equal(ready.engines, 'ready')
    assert.deepEqual(ready.sandbox, resources.sandbox)
  })

  test('a request without the host token is refused at once, not queued', async () => {
    const app = createHostApp(stack.host.resources, deferred().promise, TOKEN)
    const res = await app.request(hostRoutes.cronTimezone.path, {
      headers: { authorization: 'Bearer wrong' },
    })
    assert.equal(res.status, 401)
  })

  test('engines that fail: the waiting route fails, and health says failed', async () => {
    const engines = deferred()
    const app = createHostApp(stack.host.resources, engines.promise, TOKEN)
    const waiting = app.request(hostRoutes.cronTimezone.path, { headers: auth })
    engines.reject(new Error('memory tables could not be created'))
    const res = await waiting
    assert.equal(res.status, 500)
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'INTERNAL')
    assert.equal((await health(app)).engines, 'failed')
  })
})

test('the host app, its composition root and popagent start load no Mastra or AI SDK', async () => {
  // A child without the engines loaded: every module any of these three import is resolved
  // through the hook, which notes those that belong to Mastra or the AI SDK.
  const modules = [
    '../compute-host/server.ts',
    '../compute-host/main.ts',
    '../cli/commands/start.ts',
  ]
  const script = `
    import { registerHooks } from 'node:module'
    const seen = new Set()
    registerHooks({
      resolve(specifier, context, next) {
        const result = next(specifier, context)
        if (/\\/node_modules\\/(@mastra|ai|@ai-sdk)\\//.test(result.url)) seen.add(specifier)
        return result
      },
    })
    for (const url of ${JSON.stringify(modules.map((m) => new URL(m, import.meta.url).href))}) {
      await import(url)
    }
    console.log(JSON.stringify([...seen]))
  `
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--input-type=module', '-e', script],
    { env: { ...process.env, NODE_OPTIONS: '' } },
  )
  assert.deepEqual(JSON.parse(stdout.trim().split('\n').at(-1)!), [])
})
