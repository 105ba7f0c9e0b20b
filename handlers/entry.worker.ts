import { Hono } from 'hono'
import { connectPostgresJs } from '../db/connect-postgres.ts'
import { app } from './app.ts'
import { parseEdgeConfig } from './config.ts'
import type { AppEnv } from './env.ts'
import { handleError, handleNotFound } from './error-handler.ts'

type Bindings = {
  HYPERDRIVE?: { connectionString: string }
  OBSERVABILITY_HYPERDRIVE?: { connectionString: string }
  [key: string]: unknown
}

type WorkerEnv = AppEnv & { Bindings: Bindings }

/**
 * The Workers entry: configuration from the bindings (parsed once per isolate), and a small
 * postgres.js pool per request (Workers cannot keep sockets across requests), closed after the
 * response. Static assets are served by the assets binding before this code runs (with the
 * headers in ui/public/_headers).
 *
 * The API key is the POPAGENT_API_KEY secret (`wrangler secret put POPAGENT_API_KEY`); without
 * it /api answers 503 API_KEY_NOT_CONFIGURED rather than running open (config.ts,
 * middleware/auth.ts). POPAGENT_ALLOWED_HOSTS is optional here: see config.ts for why.
 */
const worker = new Hono<WorkerEnv>()
  .use(async (c, next) => {
    const config = parseEdgeConfig(c.env, 'workers')
    const appUrl = c.env.HYPERDRIVE?.connectionString ?? config.databaseUrl
    const observabilityUrl =
      c.env.OBSERVABILITY_HYPERDRIVE?.connectionString ?? config.observabilityDatabaseUrl
    if (!appUrl || !observabilityUrl) {
      throw new Error(
        'the Workers edge needs DATABASE_URL and OBSERVABILITY_DATABASE_URL (or the HYPERDRIVE bindings)',
      )
    }
    const application = connectPostgresJs(appUrl, { max: 2, applicationName: 'popagent-edge' })
    const observability = connectPostgresJs(observabilityUrl, {
      max: 1,
      applicationName: 'popagent-edge',
    })
    c.set('config', config)
    c.set('db', application.db)
    c.set('observabilityDb', observability.db)
    try {
      await next()
    } finally {
      c.executionCtx.waitUntil(Promise.all([application.close(), observability.close()]))
    }
  })
  .route('/', app)

worker.onError((error, c) => handleError(error, c as never))
worker.notFound((c) => handleNotFound(c as never))

export default worker
