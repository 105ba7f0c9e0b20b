import { createMiddleware } from 'hono/factory'
import type { AppEnv } from '../env.ts'

const SAFE_ID = /^[A-Za-z0-9._-]{1,64}$/

/**
 * Gives every request an id (a caller's `x-request-id` when it is safe to echo) and returns it in
 * the response header. The header is set before `next()`: changing a response after it pushes
 * @hono/node-server off its fast path, which costs throughput on every request.
 */
export const requestId = createMiddleware<AppEnv>(async (c, next) => {
  const given = c.req.header('x-request-id')
  const id = given && SAFE_ID.test(given) ? given : crypto.randomUUID()
  c.set('requestId', id)
  c.header('x-request-id', id)
  await next()
})
