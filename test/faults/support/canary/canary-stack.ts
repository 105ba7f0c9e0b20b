/**
 * A stack wired like a split production deployment (`popagent host` + `popagent edge`) whose
 * secrets are canaries: the gateway key, the edge API key, the host token and the password in
 * both database URLs. test/support/stack.ts cannot take them (its host token is fixed and its
 * logger knows no secrets), so this composes the same parts: the host builds its own logger
 * from its environment exactly as in production, writing to stderr.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseHostEnv } from '../../../../compute-host/env.ts'
import { startComputeHost, type ComputeHost } from '../../../../compute-host/main.ts'
import { openNodePostgres } from '../../../../compute-host/database/postgres.ts'
import { parseEdgeConfig } from '../../../../handlers/config.ts'
import { startNodeEdge } from '../../../../handlers/entry.node.ts'
import { createDatabaseOnServer } from '../../../support/database.ts'
import { startScriptedGateway, type ScriptedGateway } from '../../../support/scripted-gateway.ts'
import type { Canaries } from './canaries.ts'

export type CanaryStack = {
  url: string
  host: ComputeHost
  gateway: ScriptedGateway
  databaseUrls: { application: string; observability: string }
  workspaceRoot: string
  stop(): Promise<void>
}

/** The test server's URL with the canary as the password (the test server trusts loopback). */
function withPassword(url: string, password: string): string {
  const u = new URL(url)
  u.password = password
  return u.toString()
}

export async function startCanaryStack(canaries: Canaries): Promise<CanaryStack> {
  const application = await createDatabaseOnServer()
  const observability = await createDatabaseOnServer()
  const databaseUrls = {
    application: withPassword(application.url, canaries.databasePassword),
    observability: withPassword(observability.url, canaries.databasePassword),
  }
  // The gateway refuses any request without the canary key, so the key really is in use.
  const gateway = await startScriptedGateway({
    apiKey: canaries.gatewayKey,
    models: [{ id: 'test/model', contextWindow: 32_768 }],
  })
  const workspaceRoot = await mkdtemp(join(tmpdir(), 'popagent-canary-'))
  await mkdir(join(workspaceRoot, 'repo'))
  const host = await startComputeHost(
    parseHostEnv({
      DATABASE_URL: databaseUrls.application,
      OBSERVABILITY_DATABASE_URL: databaseUrls.observability,
      NINEROUTER_URL: gateway.url,
      NINEROUTER_API_KEY: canaries.gatewayKey,
      POPAGENT_HOST_TOKEN: canaries.hostToken,
      POPAGENT_HOST_PORT: '0',
      POPAGENT_WORKSPACE_ROOT: workspaceRoot,
    }),
  )
  // `popagent edge`: its own pools on the same URLs (cli/commands/edge.ts).
  const config = parseEdgeConfig({
    POPAGENT_HOST_URL: host.url,
    POPAGENT_HOST_TOKEN: canaries.hostToken,
    POPAGENT_API_KEY: canaries.apiKey,
    DATABASE_URL: databaseUrls.application,
    OBSERVABILITY_DATABASE_URL: databaseUrls.observability,
  })
  const edgeApp = openNodePostgres(databaseUrls.application, { applicationName: 'popagent-edge' })
  const edgeObs = openNodePostgres(databaseUrls.observability, {
    max: 2,
    applicationName: 'popagent-edge',
  })
  const edge = await startNodeEdge({ config, db: edgeApp.db, observabilityDb: edgeObs.db, port: 0 })
  return {
    url: edge.url,
    host,
    gateway,
    databaseUrls,
    workspaceRoot,
    async stop() {
      await edge.close()
      await edgeApp.close()
      await edgeObs.close()
      await host.stop()
      await gateway.close()
      await application.drop()
      await observability.drop()
      await rm(workspaceRoot, { recursive: true, force: true })
    },
  }
}
