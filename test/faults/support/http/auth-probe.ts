/**
 * The credentials a request might carry instead of the right one, and the check that each one
 * is refused with 401 in the one error shape. Used for the edge's API key and the compute
 * host's token alike; `send` is any way to reach a server (a socket, or `app.request`).
 */
import { randomBytes } from 'node:crypto'
import type { RawRequest, RawResponse } from './raw-http.ts'

export type Credential = {
  label: string
  headers: Record<string, string | string[]>
  query?: string
}
export type Send = (req: RawRequest) => Promise<Pick<RawResponse, 'status' | 'text' | 'headers'>>
export type Probe = { method: string; path: string }
export type Miss = {
  method: string
  path: string
  credential: string
  status: number
  body: string
}

const swapCase = (s: string) =>
  [...s].map((ch) => (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase())).join('')
const lastCharDiffers = (s: string) => s.slice(0, -1) + (s.endsWith('x') ? 'y' : 'x')

/** Near misses of `secret` as it would travel in `header`, optionally with a scheme prefix. */
export function wrongCredentials(header: string, secret: string, scheme = ''): Credential[] {
  const h = (value: string | string[]): Record<string, string | string[]> => ({ [header]: value })
  const wrong = randomBytes(secret.length).toString('base64url').slice(0, secret.length)
  const query = (name: string) => `${name}=${encodeURIComponent(secret)}`
  return [
    { label: 'none', headers: {} },
    { label: 'empty', headers: h('') },
    { label: 'wrong', headers: h(scheme + wrong) },
    { label: 'last char differs', headers: h(scheme + lastCharDiffers(secret)) },
    { label: 'other case', headers: h(scheme + swapCase(secret)) },
    { label: 'prefix', headers: h(scheme + secret.slice(0, -1)) },
    { label: 'with extra char', headers: h(`${scheme}${secret}x`) },
    { label: 'twice in one header', headers: h(`${scheme}${secret}, ${scheme}${secret}`) },
    { label: 'wrong then right header', headers: h([scheme + wrong, scheme + secret]) },
    ...(scheme
      ? [
          { label: 'without scheme', headers: h(secret) },
          { label: 'scheme in lower case', headers: h(`${scheme.toLowerCase()}${secret}`) },
          {
            label: 'basic scheme',
            headers: h(`Basic ${Buffer.from(`x:${secret}`).toString('base64')}`),
          },
        ]
      : [
          { label: 'as a bearer token', headers: { authorization: `Bearer ${secret}` } },
          { label: 'as a cookie', headers: { cookie: `${header}=${secret}` } },
        ]),
    ...[header, 'key', 'apiKey', 'api_key', 'token', 'access_token'].map((name) => ({
      label: `in the query as ${name}`,
      headers: {},
      query: query(name),
    })),
  ]
}

/** Sends every probe with every credential; returns the answers that were not a proper 401. */
export async function findUnauthenticated(
  send: Send,
  probes: Probe[],
  credentials: Credential[],
): Promise<{ requests: number; misses: Miss[] }> {
  const misses: Miss[] = []
  let requests = 0
  for (const probe of probes) {
    for (const credential of credentials) {
      const sep = probe.path.includes('?') ? '&' : '?'
      const path = credential.query ? `${probe.path}${sep}${credential.query}` : probe.path
      requests++
      const res = await send({ method: probe.method, path, headers: credential.headers })
      if (!isUnauthorized(res, probe.method))
        misses.push({
          ...probe,
          credential: credential.label,
          status: res.status,
          body: res.text.slice(0, 200),
        })
    }
  }
  return { requests, misses }
}

function isUnauthorized(res: Pick<RawResponse, 'status' | 'text'>, method: string): boolean {
  if (res.status !== 401) return false
  if (method === 'HEAD') return true // no body to check
  try {
    return JSON.parse(res.text)?.error?.code === 'UNAUTHORIZED'
  } catch {
    return false
  }
}
