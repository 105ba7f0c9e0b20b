import { startAnsweringHost } from '../../compute-host/main.ts'
import { ConfigError, parseHostEnv } from '../../compute-host/env.ts'
import { MISSING_SECRET_KEY } from '../secret-key-file.ts'
import { onShutdown } from '../shutdown.ts'

/** `popagent host`: the compute host alone, for a split deployment on a real PostgreSQL. */
export async function host(source: Record<string, string | undefined>) {
  const env = parseHostEnv(source)
  if (!env.DATABASE_URL || !env.OBSERVABILITY_DATABASE_URL) {
    throw new ConfigError(
      'popagent host runs apart from the edge, so it needs DATABASE_URL and OBSERVABILITY_DATABASE_URL: the embedded database lives inside one process (use popagent start for that)',
    )
  }
  if (!env.POPAGENT_HOST_TOKEN) {
    throw new ConfigError(
      'popagent host needs POPAGENT_HOST_TOKEN: the edge must be given the same token',
    )
  }
  if (!env.POPAGENT_SECRET_KEY) throw new ConfigError(MISSING_SECRET_KEY)
  // It answers health while its engines load; the other routes wait for them (main.ts).
  const computeHost = await startAnsweringHost(env, {
    provisionDefaultWorkspace: true,
    warmLikelyBrief: true,
  })
  onShutdown(() => computeHost.stop())
  console.log(`popagent compute host is listening at ${computeHost.url}`)
  // When the engines cannot start, the host stops and popagent exits with the error.
  await computeHost.engines.catch(async (error: unknown) => {
    await computeHost.stop()
    throw error
  })
}
