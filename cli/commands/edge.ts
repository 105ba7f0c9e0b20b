import { openPostgres } from '../../compute-host/database/postgres.ts'
import { ConfigError } from '../../compute-host/env.ts'
import { parseEdgeConfig } from '../../handlers/config.ts'
import { startNodeEdge } from '../../handlers/entry.node.ts'
import { onShutdown } from '../shutdown.ts'

/**
 * `popagent edge`: the Node edge alone, reaching a separately running compute host. On Node it
 * uses node-postgres, like the host (postgres.js can crash the process when PostgreSQL restarts:
 * compute-host/database/postgres.ts); the Workers entry keeps postgres.js.
 */
export async function edge(source: Record<string, string | undefined>) {
  const config = parseEdgeConfig(source)
  if (!config.databaseUrl || !config.observabilityDatabaseUrl) {
    throw new ConfigError('popagent edge needs DATABASE_URL and OBSERVABILITY_DATABASE_URL')
  }
  const application = openPostgres(config.databaseUrl, { applicationName: 'popagent-edge' })
  const observability = openPostgres(config.observabilityDatabaseUrl, {
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
  })
  onShutdown(async () => {
    await server.close()
    await Promise.all([application.close(), observability.close()])
  })
  console.log(`popagent edge is running at ${server.url}`)
}
