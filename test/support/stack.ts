import { parseHostEnv } from '../../compute-host/env.ts'
import { createLogger } from '../../compute-host/log.ts'
import { startComputeHost, type ComputeHost } from '../../compute-host/main.ts'
import { createTestApp } from './app.ts'
import { createDatabaseOnServer, createTestDatabase, type TestDatabase } from './database.ts'
import {
  startScriptedGateway,
  type ScriptedGateway,
  type ScriptedModel,
} from './scripted-gateway.ts'

export const quietLog = () => createLogger({ secrets: [], write: () => {} })

export type TestStack = {
  database: TestDatabase
  gateway: ScriptedGateway
  host: ComputeHost
  /** The edge app wired to this host, called in process with `request()`. */
  edge: (options?: { apiKey?: string }) => ReturnType<typeof createTestApp>
  stop(): Promise<void>
}

/**
 * A real stack for one test file: fresh application and observability databases on the test
 * server, a scripted gateway on loopback, a compute host on an ephemeral port, and the edge.
 */
export async function startTestStack(
  options: { models?: ScriptedModel[]; hostEnv?: Record<string, string> } = {},
): Promise<TestStack> {
  const database = await createTestDatabase({ migrate: false })
  const observability = await createDatabaseOnServer()
  const gateway = await startScriptedGateway({ ...(options.models && { models: options.models }) })
  const host = await startComputeHost(
    parseHostEnv({
      DATABASE_URL: database.url,
      OBSERVABILITY_DATABASE_URL: observability.url,
      NINEROUTER_URL: gateway.url,
      ...options.hostEnv,
    }),
    { port: 0, log: quietLog() },
  )
  return {
    database,
    gateway,
    host,
    edge: (edgeOptions = {}) =>
      createTestApp({
        db: host.resources.databases.application.db,
        observabilityDb: host.resources.databases.observability.db,
        hostUrl: host.url,
        hostToken: host.token,
        ...edgeOptions,
      }),
    async stop() {
      await host.stop()
      await gateway.close()
      await database.drop()
      await observability.drop()
    },
  }
}
