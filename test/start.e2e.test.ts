/**
 * The front door, as a person would use it: `popagent start` on a fresh embedded data directory,
 * a restart on the same directory, API-key protection, and the split host/edge deployment on a
 * real PostgreSQL. Times to healthy are printed for the closing notes; they are not asserted
 * (machines are shared and noisy) beyond generous ceilings that catch a hang.
 */
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { createDatabaseOnServer } from './support/database.ts'
import { runCli, startCli } from './support/process.ts'
import { until } from './support/until.ts'
import { okJson, typedClient } from './support/typed-client.ts'

async function waitHealthy(url: string, apiKey: string) {
  const health = typedClient(url, { apiKey }).api.health
  for (;;) {
    const res = await health.$get().catch(() => undefined)
    if (res?.status === 200) return okJson(res, 200)
    await new Promise((r) => setTimeout(r, 50))
  }
}

test('npm start runs on the embedded database, restarts on it, and stops cleanly', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'popagent-start-'))
  const apiKey = 'e2e-api-key-0123456789abcdef'
  const env = {
    POPAGENT_DATA_DIR: dataDir,
    PORT: '0',
    POPAGENT_API_KEY: apiKey,
    NINEROUTER_URL: 'http://127.0.0.1:1/v1',
  }
  try {
    let started = performance.now()
    const first = await startCli(['start'], env)
    const health = await waitHealthy(first.url, apiKey)
    const fresh = Math.round(performance.now() - started)
    assert.equal(health.databases.application.ok, true)
    assert.equal(health.databases.observability.ok, true)
    assert.equal(health.computeHost.reachable, true)
    assert.equal(health.gateway?.reachable, false, 'a missing gateway is reported, not fatal')

    assert.equal((await fetch(`${first.url}/api/health`)).status, 401, 'the key is required')
    assert.equal((await fetch(`${first.url}/`)).status, 200, 'the UI stays public')
    // Started from this Git checkout, the default workspace is a clone of it: its brief works.
    const api = typedClient(first.url, { apiKey }).api
    const brief = await api.workspaces[':id']['repo-brief'].$get({
      param: { id: 'wsp_default' },
      query: { q: 'sandbox' },
    })
    assert.match((await okJson(brief, 200)).text, /sandbox/)
    // Once the engines are up, the default workspace's brief is readied for the first turn.
    await until(
      () =>
        /"message":"repository brief readied"[^\n]*"workspaceId":"wsp_default"/.test(
          first.output(),
        ),
      60_000,
      'the default workspace readied',
    )
    const session = await okJson(
      await api.sessions.$post({ json: { title: 'survives a restart' } }),
      201,
    )

    const second = runCli(['start'], env)
    assert.equal(
      await second.exited,
      1,
      'a second process may not open the same embedded data directory',
    )
    assert.match(second.output(), /in use by process/)

    assert.equal(await first.stop(), 0, 'SIGTERM shuts down gracefully')

    started = performance.now()
    const restarted = await startCli(['start'], env)
    await waitHealthy(restarted.url, apiKey)
    const restart = Math.round(performance.now() - started)
    const reloaded = await typedClient(restarted.url, { apiKey }).api.sessions[':id'].$get({
      param: { id: session.id },
    })
    assert.equal((await okJson(reloaded, 200)).title, 'survives a restart')
    assert.equal(await restarted.stop(), 0)

    console.log(
      `time to healthy on the embedded database: new data directory ${fresh} ms, restart ${restart} ms`,
    )
    assert.ok(fresh < 60_000 && restart < 30_000)
  } finally {
    await rm(dataDir, { recursive: true, force: true })
  }
})

test('host and edge run as separate processes on a real PostgreSQL', async () => {
  const app = await createDatabaseOnServer()
  const observability = await createDatabaseOnServer()
  const token = 'split-host-token-0123456789'
  const apiKey = 'split-api-key-0123456789abcdef'
  const base = {
    DATABASE_URL: app.url,
    OBSERVABILITY_DATABASE_URL: observability.url,
    POPAGENT_HOST_TOKEN: token,
    POPAGENT_SECRET_KEY: Buffer.alloc(32, 9).toString('base64'),
  }
  try {
    const migrate = runCli(['migrate'], base)
    assert.equal(await migrate.exited, 0, migrate.output())
    assert.match(migrate.output(), /data migrations applied: 0001-seed-agent-runtime-settings/)

    const host = await startCli(['host'], { ...base, POPAGENT_HOST_PORT: '0' })
    const edge = await startCli(['edge'], {
      ...base,
      PORT: '0',
      POPAGENT_HOST_URL: host.url,
      POPAGENT_API_KEY: apiKey,
    })
    try {
      const health = await waitHealthy(edge.url, apiKey)
      assert.equal(health.computeHost.reachable, true)
      const created = await typedClient(edge.url, { apiKey }).api.sessions.$post({ json: {} })
      await okJson(created, 201)
    } finally {
      assert.equal(await edge.stop(), 0)
      assert.equal(await host.stop(), 0)
    }
  } finally {
    await app.drop()
    await observability.drop()
  }
})

test('the split processes refuse to start without what they need, saying what is missing', async () => {
  const host = runCli(['host'], {})
  assert.equal(await host.exited, 1)
  assert.match(host.output(), /needs DATABASE_URL and OBSERVABILITY_DATABASE_URL/)
  const edge = runCli(['edge'], { POPAGENT_HOST_TOKEN: 'x'.repeat(20) })
  assert.equal(await edge.exited, 1)
  assert.match(edge.output(), /needs DATABASE_URL/)
  const badEnv = runCli(['start'], { PORT: 'not-a-port', POPAGENT_DATA_DIR: '/nonexistent/never' })
  assert.equal(await badEnv.exited, 1)
  assert.match(badEnv.output(), /PORT/)
  const unknown = runCli(['frobnicate'], {})
  assert.equal(await unknown.exited, 2)
})
