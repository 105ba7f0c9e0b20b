import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseHostEnv } from '../../compute-host/env.ts'
import { createSecretRedactor } from '../../runtime/redaction.ts'
import { createLogger } from '../../compute-host/log.ts'
import { startComputeHost, type ComputeHost } from '../../compute-host/main.ts'
import { connectPostgresJs } from '../../db/connect-postgres.ts'
import { parseEdgeConfig } from '../../handlers/config.ts'
import { startNodeEdge } from '../../handlers/entry.node.ts'
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
  /**
   * Serves the edge on a real loopback port (for streaming and disconnect tests). With
   * `inProcessHost` it calls the host's API in process, as `popagent start` composes them.
   */
  listen(options?: { apiKey?: string; inProcessHost?: boolean }): Promise<string>
  /** Every line the host logged, parsed. */
  logs: Record<string, unknown>[]
  /** Stops the compute host and starts a new one on the same databases. */
  restartHost(): Promise<void>
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
  // Its own workspace root unless the test brings one: `./workspace` would be the checkout's.
  const workspaceRoot = await mkdtemp(join(tmpdir(), 'popagent-stack-workspaces-'))
  const env = parseHostEnv({
    DATABASE_URL: database.url,
    OBSERVABILITY_DATABASE_URL: observability.url,
    NINEROUTER_URL: gateway.url,
    POPAGENT_WORKSPACE_ROOT: workspaceRoot,
    ...options.hostEnv,
  })
  const logs: Record<string, unknown>[] = []
  // The host's one redactor, shared with the logger as in production.
  const redactor = createSecretRedactor()
  // Every level, so the tests that look for leaks in the log see the debug lines too.
  const log = createLogger({
    redactor,
    write: (line) => void logs.push(JSON.parse(line)),
    level: 'debug',
  })
  const start = (port = 0) =>
    startComputeHost(env, { port, log, redactor, token: 'stack-host-token-0123456789' })
  let edges: NodeEdge[] = []
  const stack: TestStack = {
    logs,
    database,
    gateway,
    host: await start(),
    edge: (edgeOptions = {}) =>
      createTestApp({
        db: stack.host.resources.databases.application.db,
        observabilityDb: stack.host.resources.databases.observability.db,
        hostUrl: stack.host.url,
        hostToken: stack.host.token,
        ...edgeOptions,
      }),
    async listen(listenOptions = {}) {
      // The edge keeps its own database handle, as a separately deployed edge would.
      const edgeDb = connectPostgresJs(database.url, { max: 4 })
      const edge = await startNodeEdge({
        config: {
          ...parseEdgeConfig({
            POPAGENT_HOST_URL: stack.host.url,
            POPAGENT_HOST_TOKEN: stack.host.token,
            ...(listenOptions.apiKey && { POPAGENT_API_KEY: listenOptions.apiKey }),
          }),
          ...(listenOptions.inProcessHost && { hostFetch: stack.host.fetch }),
        },
        db: edgeDb.db,
        observabilityDb: edgeDb.db,
        port: 0,
      })
      edges.push({ url: edge.url, close: async () => (await edge.close(), await edgeDb.close()) })
      return edge.url
    },
    async restartHost() {
      const port = Number(new URL(stack.host.url).port)
      await stack.host.stop()
      stack.host = await start(port)
    },
    async stop() {
      for (const edge of edges) await edge.close()
      edges = []
      await stack.host.stop()
      await gateway.close()
      await database.drop()
      await observability.drop()
      await rm(workspaceRoot, { recursive: true, force: true })
    },
  }
  return stack
}

type NodeEdge = { url: string; close: () => Promise<void> }
