import { AppError } from '../errors.ts'

export const OriginRefused = AppError.define('ORIGIN_REFUSED', 422, 'not an HTTPS origin')

/**
 * The origin a binding stores, as WHATWG URL parsing gives it: `https:` only; no user info, no
 * wildcard, no trailing dot (a second spelling of the same host); path, query and fragment
 * dropped; the default port elided and any other kept exactly. International names are stored
 * as the punycode URL parsing produces, so a look-alike never equals the name it imitates.
 */
export function normaliseOrigin(given: string): string {
  const refuse = (why: string) =>
    new OriginRefused({ origin: given }, { message: `${given}: ${why}` })
  let url: URL
  try {
    url = new URL(given)
  } catch {
    throw refuse('not a URL')
  }
  if (url.protocol !== 'https:') throw refuse('only https: origins can hold a secret')
  if (url.username || url.password) throw refuse('user info is not allowed')
  if (given.includes('*')) throw refuse('wildcards are not allowed')
  if (url.hostname.endsWith('.')) throw refuse('a trailing dot is not allowed')
  return url.origin
}
