import { Hono } from 'hono'
import type { AppEnv } from '../env.ts'

/**
 * AkurAI Build (docs/build.md): whether it is configured on the host, its connection, and which
 * operations each `build-*` tool lacks. Disabled without AKURAI_BUILD_API_KEY: a status, not an
 * error. Behind the API key like all of /api.
 */
export const build = new Hono<AppEnv>().get('/status', async (c) =>
  c.json(await c.var.host.buildStatus(), 200),
)
