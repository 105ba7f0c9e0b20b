import { createMiddleware } from 'hono/factory'
import { REQUEST_ID_HEADER, requestIdFrom } from '../../runtime/request-id.ts'
import type { AppEnv } from '../env.ts'

/**
 * Gives every request an id (a caller's `x-request-id` when it is safe to echo) and returns it in
 * the response header; the host client sends it on to the compute host, whose log lines carry it.
 * The header is set before `next()`: changing a response after it pushes @hono/node-server off its
 * fast path, which costs throughput on every request.
 */
export const requestId = createMiddleware<AppEnv>(async (c, next) => {
  const id = requestIdFrom(c.req.header(REQUEST_ID_HEADER))
  c.set('requestId', id)
  c.header(REQUEST_ID_HEADER, id)
  await next()
})
