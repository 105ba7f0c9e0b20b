import { createMiddleware } from 'hono/factory'
import { errorBody } from '../../runtime/errors.ts'
import { secretsEqual } from '../../runtime/constant-time.ts'
import type { AppEnv } from '../env.ts'

export const API_KEY_HEADER = 'x-popagent-key'

/**
 * With POPAGENT_API_KEY set, every request through this middleware (all of /api, including
 * unknown paths) needs the matching `x-popagent-key`, compared in constant time.
 */
export const apiKeyAuth = createMiddleware<AppEnv>(async (c, next) => {
  const expected = c.var.config.apiKey
  if (expected === undefined) return next()
  const given = c.req.header(API_KEY_HEADER)
  if (given === undefined || !secretsEqual(given, expected)) {
    return c.json(errorBody('UNAUTHORIZED', `missing or wrong ${API_KEY_HEADER} header`), 401)
  }
  await next()
})
