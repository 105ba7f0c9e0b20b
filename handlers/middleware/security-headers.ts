import { createMiddleware } from 'hono/factory'
import type { AppEnv } from '../env.ts'

/**
 * Headers on every response of the edge (UI and /api, Node and Workers; on Workers the static
 * assets get the same set from ui/public/_headers, which a test keeps equal to this one).
 *
 * The policy allows only this origin's own scripts, styles, images and connections, no plugins,
 * no framing, no `<base>` rewrites and no form posts elsewhere. The built UI loads one module
 * script and stylesheets from /assets and sets styles through classes or the CSSOM, which CSP
 * allows. A constant `style={{…}}` in a component is compiled into `style="…"` template markup,
 * which `style-src 'self'` drops, so the UI has none (test/ui-login.browser.test.ts tours every
 * page and expects no refusal). That is preferred to `'unsafe-inline'`, which would let injected
 * markup style the page to leak its text.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
}

// API answers carry session contents and settings: no browser or proxy keeps a copy.
const API_HEADERS: Readonly<Record<string, string>> = {
  ...SECURITY_HEADERS,
  'cache-control': 'no-store',
}

const isApi = (path: string) => path === '/api' || path.startsWith('/api/')

/**
 * Set before `next()` so responses built with `c.json`/`c.body` carry them without being copied
 * (request-id.ts says why that matters). A handler that returns its own `Response` (the chat
 * stream) skips those prepared headers, so they are checked afterwards and added when missing.
 * About 2 µs a request, measured in process; a route that sets its own Cache-Control through
 * `c.header` is taken at its word.
 */
export const securityHeaders = createMiddleware<AppEnv>(async (c, next) => {
  const wanted = isApi(c.req.path) ? API_HEADERS : SECURITY_HEADERS
  for (const name in wanted) c.header(name, wanted[name])
  await next()
  // One header stands for the set: a response built by Hono has all of them or none.
  if (c.res.headers.get('x-frame-options') === 'DENY') return
  try {
    for (const name in wanted) c.res.headers.set(name, wanted[name]!)
  } catch {
    // Immutable headers (a fetch() response passed through): answer with a copy. The old
    // response is dropped first, or Hono's `c.res` setter would copy its headers back over ours.
    const copy = new Response(c.res.body, c.res)
    for (const name in wanted) copy.headers.set(name, wanted[name]!)
    c.res = undefined as never
    c.res = copy
  }
})
