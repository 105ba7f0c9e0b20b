import { startAnsweringHost } from '../../compute-host/main.ts'
import { parseHostEnv } from '../../compute-host/env.ts'
import { parseEdgeConfig } from '../../handlers/config.ts'
import { startNodeEdge } from '../../handlers/entry.node.ts'
import { resolveApiKey } from '../api-key-file.ts'
import { resolveSecretKey } from '../secret-key-file.ts'
import { browserUrl, loginLines } from '../login.ts'
import { onShutdown } from '../shutdown.ts'

/**
 * `popagent start`: everything in one process. It owns the database (embedded PGlite unless
 * DATABASE_URL is set), runs the compute host on a loopback port and the Node edge on PORT. The
 * edge calls the host's API in process, through the same client, token and schemas that a
 * separately deployed edge uses over HTTP (the tests' stacks run that split); the host still
 * listens on loopback for the CLI's host commands and other edges.
 *
 * The API is never open: without POPAGENT_API_KEY the key is generated into the data directory
 * on the first start and reused after (api-key-file.ts). It joins the host's secrets, so the
 * host's log and outputs redact it.
 */
export async function start(source: Record<string, string | undefined>) {
  const started = performance.now()
  const parsed = parseHostEnv(source)
  const apiKey = await resolveApiKey(parsed.POPAGENT_API_KEY, parsed.POPAGENT_DATA_DIR)
  // Generated into the data directory on the embedded database; required on a real PostgreSQL.
  const secretKey = await resolveSecretKey(parsed)
  const env = { ...parsed, POPAGENT_API_KEY: apiKey.key, POPAGENT_SECRET_KEY: secretKey }
  // The host answers before its engines (Mastra, agents, runners) are loaded; see main.ts.
  const host = await startAnsweringHost(env, {
    // The host port is private to this process unless the operator pins it.
    port: source.POPAGENT_HOST_PORT ? env.POPAGENT_HOST_PORT : 0,
    provisionDefaultWorkspace: true,
    warmLikelyBrief: true,
  })
  try {
    const config = {
      ...parseEdgeConfig({
        ...source,
        POPAGENT_API_KEY: apiKey.key,
        POPAGENT_HOST_URL: host.url,
        POPAGENT_HOST_TOKEN: host.token,
      }),
      // In this one process the edge calls the host's API directly (its token check, routes and
      // schemas included) rather than through a loopback socket; see compute-host/server.ts.
      hostFetch: host.fetch,
    }
    const edge = await startNodeEdge({
      config,
      db: host.core.databases.application.db,
      observabilityDb: host.core.databases.observability.db,
      port: env.PORT,
      hostname: env.POPAGENT_BIND,
    })
    onShutdown(async () => {
      await edge.close()
      await host.stop()
    })
    host.core.log.info('popagent ready', {
      url: edge.url,
      database: host.core.databases.mode,
      msToReady: Math.round(performance.now() - started),
    })
    console.log(`popagent is running at ${edge.url}`)
    const url = browserUrl(edge.url)
    for (const line of loginLines({ url, apiKey, terminal: process.stdout.isTTY === true })) {
      console.log(line)
    }
    // Chat turns and tasks wait for these; when they cannot start, popagent stops with the error.
    await host.engines.catch(async (error: unknown) => {
      await edge.close()
      throw error
    })
    host.core.log.info('agents ready', { msToAgents: Math.round(performance.now() - started) })
  } catch (error) {
    await host.stop()
    throw error
  }
}
