import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { connectPostgresJs } from '../db/connect-postgres.ts'
import type { Db } from '../db/index.ts'
import { parseHostEnv } from '../compute-host/env.ts'
import { startComputeHost, type ComputeHost } from '../compute-host/main.ts'
import { createLogger } from '../compute-host/log.ts'
import { createTestApp } from './support/app.ts'
import {
  createDatabaseOnServer,
  createTestDatabase,
  type TestDatabase,
} from './support/database.ts'
import { checkSandbox } from '../compute-host/workspaces/sandbox-check.ts'
import { startScriptedGateway, type ScriptedGateway } from './support/scripted-gateway.ts'
import { errorJson, okJson, typedClient } from './support/typed-client.ts'

const quietLog = createLogger({ secrets: [], write: () => {} })

describe('GET /api/health', () => {
  let app: TestDatabase
  let observability: Awaited<ReturnType<typeof createDatabaseOnServer>>
  let host: ComputeHost
  let gateway: ScriptedGateway
  before(async () => {
    app = await createTestDatabase({ migrate: false })
    observability = await createDatabaseOnServer()
    gateway = await startScriptedGateway()
    host = await startComputeHost(
      parseHostEnv({
        DATABASE_URL: app.url,
        OBSERVABILITY_DATABASE_URL: observability.url,
        NINEROUTER_URL: gateway.url,
      }),
      { port: 0, log: quietLog },
    )
  })
  after(async () => {
    await host.stop()
    await gateway.close()
    await app.drop()
    await observability.drop()
  })

  const health = (
    overrides: { observabilityDb?: Db; db?: Db; hostUrl?: string; hostToken?: string } = {},
  ) =>
    typedClient(
      createTestApp({
        db: overrides.db ?? host.resources.databases.application.db,
        observabilityDb: overrides.observabilityDb ?? host.resources.databases.observability.db,
        hostUrl: overrides.hostUrl ?? host.url,
        hostToken: overrides.hostToken ?? host.token,
      }),
    ).api.health.$get()

  test('200 when both databases answer, with the host and the gateway reported', async () => {
    const body = await okJson(await health(), 200)
    assert.equal(body.status, 'ok')
    assert.equal(body.databases.application.ok, true)
    assert.equal(body.databases.observability.ok, true)
    assert.equal(body.computeHost.reachable, true)
    assert.equal(body.gateway?.reachable, true)
    assert.deepEqual(body.localModels, { limit: 2, active: 0, queued: 0 })
    // The sandbox is reported as this machine's self-test finds it, with the reason when off.
    assert.deepEqual(body.sandbox, await checkSandbox())
    // No AKURAI_BUILD_API_KEY: Build is disabled, said with the reason, and nothing is asked.
    assert.deepEqual(body.build, {
      state: 'disabled',
      reason: 'AKURAI_BUILD_API_KEY is not set: AkurAI Build is disabled',
    })
    assert.ok(
      gateway.requests.some((r) => r.path === '/v1/models'),
      'the host asked the gateway',
    )
  })

  test('503 naming the observability database when only it is down', async () => {
    const down = connectPostgresJs('postgres://postgres@127.0.0.1:1/none', { max: 1 })
    try {
      const body = await errorJson(await health({ observabilityDb: down.db }), 503)
      assert.equal(body.error.code, 'NOT_READY')
      assert.match(body.error.message, /^observability database/)
      assert.equal(body.databases.application.ok, true)
      assert.equal(body.databases.observability.ok, false)
    } finally {
      await down.close()
    }
  })

  test('503 naming the application database when it is down', async () => {
    const down = connectPostgresJs('postgres://postgres@127.0.0.1:1/none', { max: 1 })
    try {
      const body = await errorJson(await health({ db: down.db }), 503)
      assert.match(body.error.message, /^application database/)
    } finally {
      await down.close()
    }
  })

  test('an unreachable compute host or a wrong host token is reported, not a readiness failure', async () => {
    for (const overrides of [
      { hostUrl: 'http://127.0.0.1:1' },
      { hostToken: 'not-the-host-token-000000' },
    ]) {
      const body = await okJson(await health(overrides), 200)
      assert.equal(body.computeHost.reachable, false)
      assert.equal(typeof body.computeHost.error, 'string')
      assert.equal(body.gateway, null)
      assert.equal(body.sandbox, null)
    }
  })

  test('the host API refuses requests without its token', async () => {
    const res = await fetch(`${host.url}/internal/health`)
    assert.equal(res.status, 401)
    const wrong = await fetch(`${host.url}/internal/health`, {
      headers: { authorization: 'Bearer nope' },
    })
    assert.equal(wrong.status, 401)
  })
})
