/**
 * What every answer to a bad request must be: below 500 and, when it refuses, JSON in the one
 * error shape (runtime/errors.ts `errorBody`) with no stack trace. A 2xx is allowed: some
 * generated inputs are valid, and a valid request may start real work.
 */
import type { Case } from './cases.ts'
import type { RawResponse } from './raw-http.ts'

export type Verdict = { ok: true } | { ok: false; problem: string }

export function judge(res: RawResponse): Verdict {
  if (res.status >= 500) return { ok: false, problem: `status ${res.status}` }
  if (res.status < 400) return { ok: true }
  const type = String(res.headers['content-type'] ?? '')
  if (!/^application\/json/i.test(type)) return { ok: false, problem: `content-type "${type}"` }
  let body: any
  try {
    body = JSON.parse(res.text)
  } catch {
    return { ok: false, problem: 'body is not JSON' }
  }
  if (typeof body?.error?.code !== 'string' || typeof body.error.message !== 'string')
    return { ok: false, problem: 'not the error shape' }
  if (res.text.includes('    at ')) return { ok: false, problem: 'stack trace on the wire' }
  return { ok: true }
}

export type Failure = {
  route: string
  category: string
  label: string
  problem: string
  body: string
}

export const failureOf = (c: Case, problem: string, body = ''): Failure => ({
  route: c.route,
  category: c.category,
  label: c.label,
  problem,
  body: body.slice(0, 300),
})

/** Counts answers by status class: `2xx`, `4xx`, … and `none` for no answer. */
export function statusClass(status: number | undefined): string {
  return status === undefined ? 'none' : `${Math.floor(status / 100)}xx`
}
