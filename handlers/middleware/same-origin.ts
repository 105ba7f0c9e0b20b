import { createMiddleware } from 'hono/factory'
import { errorBody } from '../../runtime/errors.ts'
import type { AppEnv } from '../env.ts'

// Methods a browser may send cross-site without asking, and that change nothing here.
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Refuses state-changing /api requests that a browser sent on behalf of another site: an Origin
 * that is not this server's own, or `Sec-Fetch-Site: cross-site`. The API key already stops a
 * page that does not know it; this covers a server run without one and body-less POSTs (such as
 * `/api/tasks/:id/cancel`) that need no CORS preflight. Requests without an Origin (the CLI,
 * curl, a supervisor) are not browsers' cross-site requests and pass.
 */
export const sameOriginWrites = createMiddleware<AppEnv>(async (c, next) => {
  if (SAFE_METHODS.has(c.req.method)) return next()
  const origin = c.req.header('origin')
  const crossSite = c.req.header('sec-fetch-site') === 'cross-site'
  if (
    !crossSite &&
    (origin === undefined || isOwnOrigin(origin, c.req.url, c.req.header('host')))
  ) {
    return next()
  }
  return c.json(
    errorBody(
      'CROSS_SITE_REQUEST',
      'state-changing requests from another site are refused: the Origin is not this server',
    ),
    403,
  )
})

/**
 * Whether `origin` is the origin the request was addressed to: the same host and port as the
 * (already allowed) Host, and the request's own scheme. `https:` is accepted as well, because
 * behind a TLS-terminating proxy the browser's origin is https while the edge sees plain http;
 * no other site can hold an https origin on this very host and port. `null` and anything
 * unparsable are foreign.
 */
function isOwnOrigin(origin: string, requestUrl: string, hostHeader: string | undefined): boolean {
  let given: URL
  let own: URL
  try {
    given = new URL(origin)
    own = new URL(requestUrl)
  } catch {
    return false
  }
  if (given.protocol !== own.protocol && given.protocol !== 'https:') return false
  // A serialised origin only: no path, user info or default port spelled out.
  if (given.origin !== origin.toLowerCase()) return false
  try {
    // Normalised through URL so that `host:443` equals an https origin without a port.
    return new URL(`${given.protocol}//${hostHeader ?? own.host}`).host === given.host
  } catch {
    return false
  }
}
