import { openNodePostgres } from '../../compute-host/database/postgres.ts'
import { ConfigError, DEFAULT_DATA_DIR } from '../../compute-host/env.ts'
import { parseEdgeConfig } from '../../handlers/config.ts'
import { startNodeEdge } from '../../handlers/entry.node.ts'
import { withoutEmptyValues } from '../../runtime/env-values.ts'
import { resolveApiKey } from '../api-key-file.ts'
import { browserUrl, loginLines } from '../login.ts'
import { onShutdown } from '../shutdown.ts'

/**
 * `popagent edge`: the Node edge alone, reaching a separately running compute host. On Node it
 * uses node-postgres, like the host (postgres.js can crash the process when PostgreSQL restarts:
 * compute-host/database/postgres.ts); the Workers entry keeps postgres.js. Like `start`, it
 * never runs without an API key: POPAGENT_API_KEY, or the key file in POPAGENT_DATA_DIR.
 */
export async function edge(raw: Record<string, string | undefined>) {
  const source = withoutEmptyValues(raw)
  const configured = parseEdgeConfig(source)
  if (!configured.databaseUrl || !configured.observabilityDatabaseUrl) {
    throw new ConfigError('popagent edge needs DATABASE_URL and OBSERVABILITY_DATABASE_URL')
  }
  const apiKey = await resolveApiKey(
    configured.apiKey,
    source.POPAGENT_DATA_DIR ?? DEFAULT_DATA_DIR,
  )
  const config = parseEdgeConfig({ ...source, POPAGENT_API_KEY: apiKey.key })
  const application = openNodePostgres(config.databaseUrl!, { applicationName: 'popagent-edge' })
  const observability = openNodePostgres(config.observabilityDatabaseUrl!, {
    max: 2,
    applicationName: 'popagent-edge',
  })
  const port = Number(source.PORT ?? 3000)
  const server = await startNodeEdge({
    config,
    db: application.db,
    observabilityDb: observability.db,
    port,
    hostname: source.POPAGENT_BIND ?? '127.0.0.1',
  }).catch(async (error: unknown) => {
    await Promise.all([application.close(), observability.close()])
    throw error
  })
  onShutdown(async () => {
    await server.close()
    await Promise.all([application.close(), observability.close()])
  })
  console.log(`popagent edge is running at ${server.url}`)
  const url = browserUrl(server.url)
  for (const line of loginLines({ url, apiKey, terminal: process.stdout.isTTY === true })) {
    console.log(line)
  }
}
