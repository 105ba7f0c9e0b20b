/**
 * AkurAI Build in GET /api/health (issue 40): reachable with its operations counted when the
 * server lists them, unreachable with the reason when it does not answer, never a readiness
 * blocker and never showing the key. A real compute host configured with AKURAI_BUILD_URL and
 * AKURAI_BUILD_API_KEY against the protocol-faithful fake Build server on loopback; the disabled
 * case (no key) is in test/health.test.ts.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { parseHostEnv } from '../compute-host/env.ts'
import { createLogger } from '../compute-host/log.ts'
import { startComputeHost, type ComputeHost } from '../compute-host/main.ts'
import { createTestApp } from './support/app.ts'
import {
  createDatabaseOnServer,
  createTestDatabase,
  type TestDatabase,
} from './support/database.ts'
import {
  BUILD_TEST_KEY,
  startFakeBuildServer,
  type FakeBuildServer,
} from './support/mcp-build-server.ts'
import { startScriptedGateway, type ScriptedGateway } from './support/scripted-gateway.ts'
import { okJson, typedClient } from './support/typed-client.ts'

let app: TestDatabase
let observability: Awaited<ReturnType<typeof createDatabaseOnServer>>
let host: ComputeHost
let gateway: ScriptedGateway
let build: FakeBuildServer

before(async () => {
  app = await createTestDatabase({ migrate: false })
  observability = await createDatabaseOnServer()
  gateway = await startScriptedGateway()
  build = await startFakeBuildServer()
  host = await startComputeHost(
    parseHostEnv({
      DATABASE_URL: app.url,
      OBSERVABILITY_DATABASE_URL: observability.url,
      NINEROUTER_URL: gateway.url,
      AKURAI_BUILD_URL: build.url,
      AKURAI_BUILD_API_KEY: BUILD_TEST_KEY,
    }),
    { port: 0, log: createLogger({ secrets: [], write: () => {} }) },
  )
})
after(async () => {
  await host.stop()
  await build.stop()
  await gateway.close()
  await app.drop()
  await observability.drop()
})

const health = async () =>
  okJson(
    await typedClient(
      createTestApp({
        db: host.resources.databases.application.db,
        observabilityDb: host.resources.databases.observability.db,
        hostUrl: host.url,
        hostToken: host.token,
      }),
    ).api.health.$get(),
    200,
  )

test('health reports Build reachable, with the operations it lists, and never the key', async () => {
  const body = await health()
  assert.equal(body.build?.state, 'reachable', JSON.stringify(body.build))
  assert.ok(body.build?.state === 'reachable' && body.build.operations > 0)
  assert.equal(body.build?.url, new URL(build.url).origin)
  assert.ok(!JSON.stringify(body).includes(BUILD_TEST_KEY))
  assert.ok(build.requests.some((r) => r.method === 'tools/list'))
})

test('health reports Build unreachable with the reason once the server is gone, and stays 200', async () => {
  await build.stop()
  // The host drops its session when a call fails; the next health check connects again.
  const reachable = await health()
  const body = reachable.build?.state === 'unreachable' ? reachable : await health()
  assert.equal(body.status, 'ok')
  assert.equal(body.build?.state, 'unreachable', JSON.stringify(body.build))
  assert.ok(body.build?.state === 'unreachable' && body.build.reason.length > 0)
  assert.ok(!JSON.stringify(body).includes(BUILD_TEST_KEY))
})
