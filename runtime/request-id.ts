/** The header that carries a request's id from the client through the edge to the compute host. */
export const REQUEST_ID_HEADER = 'x-request-id'

const SAFE_ID = /^[A-Za-z0-9._-]{1,64}$/

/**
 * The id a request goes by: the caller's when it is safe to echo and to log (short, no spaces or
 * quotes), a fresh one otherwise. The edge applies it to clients, the host to the edge.
 */
export function requestIdFrom(given: string | undefined): string {
  return given && SAFE_ID.test(given) ? given : crypto.randomUUID()
}
