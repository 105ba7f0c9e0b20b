import { bodyLimit } from 'hono/body-limit'
import { createMiddleware } from 'hono/factory'
import { errorBody } from '../../runtime/errors.ts'
import type { AppEnv } from '../env.ts'

/**
 * Refuses request bodies over the configured size with 413, whether or not the client declared a
 * Content-Length (a chunked body is counted as it streams).
 *
 * GET and HEAD requests (which carry no body) and bodies with a declared length are judged from
 * the headers alone: Hono's `bodyLimit` looks at `c.req.raw.body` first, which on Node makes the
 * adapter build a full Web Request for every call (about an eighth of a small request's CPU in
 * `npm run bench`). The HTTP parser (Node's, or the Workers runtime's) never reads more than the
 * declared length. Everything else, chunked bodies included, is counted as it streams.
 */
export const jsonBodyLimit = createMiddleware<AppEnv>(async (c, next) => {
  const maxSize = c.var.config.maxBodyBytes
  const tooLarge = () =>
    c.json(errorBody('PAYLOAD_TOO_LARGE', `request body is larger than ${maxSize} bytes`), 413)
  if (c.req.method === 'GET' || c.req.method === 'HEAD') return next()
  const declared = c.req.header('content-length')
  if (declared !== undefined && c.req.header('transfer-encoding') === undefined) {
    const length = Number(declared)
    if (Number.isSafeInteger(length) && length >= 0) return length > maxSize ? tooLarge() : next()
  }
  return bodyLimit({ maxSize, onError: tooLarge })(c, next)
})
