import { createMiddleware } from 'hono/factory'
import { errorBody } from '../../runtime/errors.ts'
import { secretsEqual } from '../../runtime/constant-time.ts'
import type { AppEnv } from '../env.ts'

export const API_KEY_HEADER = 'x-popagent-key'

/**
 * With POPAGENT_API_KEY set, every request through this middleware (all of /api, including
 * unknown paths) needs the matching `x-popagent-key`, compared in constant time. Without one it
 * lets requests through only where the configuration allows running without a key (Node, whose
 * entry points always supply one off loopback); Workers answer 503 instead of running open.
 */
export const apiKeyAuth = createMiddleware<AppEnv>(async (c, next) => {
  const { apiKey: expected, apiKeyRequired } = c.var.config
  if (expected === undefined) {
    if (!apiKeyRequired) return next()
    return c.json(
      errorBody(
        'API_KEY_NOT_CONFIGURED',
        'this server has no API key, so /api is closed: set one with `wrangler secret put POPAGENT_API_KEY`',
      ),
      503,
    )
  }
  const given = c.req.header(API_KEY_HEADER)
  if (given === undefined || !secretsEqual(given, expected)) {
    return c.json(errorBody('UNAUTHORIZED', `missing or wrong ${API_KEY_HEADER} header`), 401)
  }
  await next()
})
