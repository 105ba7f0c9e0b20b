import { createMiddleware } from 'hono/factory'
import { errorBody } from '../../runtime/errors.ts'
import type { AppEnv } from '../env.ts'
import { hostAllowed, type HostPattern } from '../host-allowlist.ts'

/**
 * Answers only requests addressed to a name this server knows (host-allowlist.ts), on every path:
 * a rebound page must not read the UI's answers any more than the API's. 421 Misdirected Request
 * says "not this server's name" without suggesting that credentials would help.
 *
 * Both the Host header and the request URL's host are checked: they differ only for an
 * absolute-form request target, which @hono/node-server takes over the header.
 */
export const allowedHosts = createMiddleware<AppEnv>(async (c, next) => {
  const allowlist = c.var.config.allowedHosts
  if (allowlist === 'any') return next()
  const header = c.req.header('host')
  if (
    (header === undefined || allowed(header, allowlist)) &&
    allowed(urlHost(c.req.url), allowlist)
  ) {
    return next()
  }
  // The refused name is not echoed: it is the caller's text.
  return c.json(
    errorBody(
      'HOST_NOT_ALLOWED',
      'this server does not answer for the host name in the request; its operator lists public names in POPAGENT_ALLOWED_HOSTS',
    ),
    421,
  )
})

// A server sees a handful of Host values, again and again: their answers are remembered (about
// 1 µs a request otherwise), up to a bound so that a stream of invented names cannot grow it.
const answers = new WeakMap<readonly HostPattern[], Map<string, boolean>>()
const REMEMBERED = 256
function allowed(value: string, allowlist: readonly HostPattern[]): boolean {
  let known = answers.get(allowlist)
  if (!known) answers.set(allowlist, (known = new Map()))
  let answer = known.get(value)
  if (answer === undefined) {
    answer = hostAllowed(value, allowlist)
    if (known.size < REMEMBERED) known.set(value, answer)
  }
  return answer
}

/** The authority of an absolute URL, without building a URL object on every request. */
function urlHost(url: string): string {
  const start = url.indexOf('//') + 2
  const end = url.indexOf('/', start)
  return url.slice(start, end === -1 ? undefined : end)
}
