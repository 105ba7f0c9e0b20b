/**
 * API tests talk to the edge as the UI and the CLI do: through `hc<AppType>`, so a response body
 * has the type the route declares, and a route whose body stops being visible in `AppType` breaks
 * the type check instead of hiding behind a cast to `any` (test/no-explicit-any.test.ts refuses those).
 */
import assert from 'node:assert/strict'
import { hc, type ClientResponse } from 'hono/client'
import type { SuccessStatusCode } from 'hono/utils/http-status'
import type { AppType } from '../../handlers/app.ts'
import { API_KEY_HEADER } from '../../handlers/middleware/auth.ts'
import type { FieldErrors } from '../../runtime/contracts/errors.ts'

export type Client = ReturnType<typeof hc<AppType>>

/** Anything with Hono's `request()`: the app from `createTestApp()` or `stack.edge()`. */
type InProcess = {
  request: (input: string, init?: RequestInit) => Response | Promise<Response>
}

/**
 * The typed client over an edge: in process when given the app, over the network when given the
 * URL of a listening edge (`await stack.listen()`). With `apiKey` every request carries it.
 */
export function typedClient(edge: InProcess | string, options: { apiKey?: string } = {}): Client {
  const headers = options.apiKey ? { [API_KEY_HEADER]: options.apiKey } : undefined
  if (typeof edge === 'string') return hc<AppType>(edge, { ...(headers && { headers }) })
  // A loopback name: the edge answers only names it knows (handlers/middleware/allowed-hosts.ts).
  return hc<AppType>('http://localhost', {
    ...(headers && { headers }),
    // hc asks for a URL string; a Request or URL is read back to one all the same.
    fetch: (input: RequestInfo | URL, init?: RequestInit) =>
      edge.request(input instanceof Request ? input.url : String(input), init),
  })
}

/** The body of a route's success answers, as `AppType` declares them. */
export type OkBody<R> =
  R extends ClientResponse<infer T, infer S, 'json'>
    ? S extends SuccessStatusCode
      ? T
      : never
    : R extends Response
      ? unknown
      : never

/** The wire shape of every error (`{ error: { code, message, data? } }`); 400s carry fields. */
export type WireError = {
  error: {
    code: string
    message: string
    data?: { fields?: FieldErrors; [key: string]: unknown }
  }
}

/** Reads a success body, failing with the body in the message when the status is not 2xx. */
export async function okJson<R extends ClientResponse<unknown, number, 'json'> | Response>(
  res: R,
  status?: SuccessStatusCode,
): Promise<OkBody<R>> {
  const body = (await res.json()) as OkBody<R>
  if (status !== undefined) assert.equal(res.status, status, JSON.stringify(body))
  else assert.ok(res.ok, `${res.status}: ${JSON.stringify(body)}`)
  return body
}

/** The body a route declares for `status` (a 409 with the current session, a 503 health report). */
type DeclaredAt<R, S> =
  R extends ClientResponse<infer T, infer U, 'json'> ? (U extends S ? T : never) : never

/** The wire error, with what the route declares for that status when it declares anything. */
export type ErrorBody<R, S = never> = [DeclaredAt<R, S>] extends [never]
  ? WireError
  : DeclaredAt<R, S> & WireError

/**
 * Reads an error body, failing with the body in the message when the status is not `status` (or,
 * without one, is a success).
 */
export async function errorJson<
  R extends ClientResponse<unknown, number, 'json'> | Response,
  S extends number = never,
>(res: R, status?: S): Promise<ErrorBody<R, S>> {
  const body = (await res.json()) as ErrorBody<R, S>
  if (status !== undefined) assert.equal(res.status, status, JSON.stringify(body))
  else assert.ok(!res.ok, `${res.status}: ${JSON.stringify(body)}`)
  assert.equal(typeof body.error?.code, 'string', JSON.stringify(body))
  return body
}
