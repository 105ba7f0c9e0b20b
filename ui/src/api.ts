import { hc } from 'hono/client'
import type { AppType } from '../../handlers/app.ts'
import { signalKeyRejected, storedKey } from './auth.ts'

/**
 * The one typed client. Every request carries the API key the owner entered or signed in with
 * (when the server has one); a 401 asks for the key again instead of leaving a blank page.
 */
export const client = hc<AppType>('/', {
  headers: (): Record<string, string> => {
    const key = storedKey()
    return key ? { 'x-popagent-key': key } : {}
  },
  fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
    const res = await fetch(input, init)
    if (res.status === 401) signalKeyRejected()
    return res
  },
})
export const api = client.api

/** An error the UI shows: the server's own message when it sent one. */
export class ApiError extends Error {
  readonly status: number
  readonly code: string
  readonly data: unknown
  constructor(status: number, code: string, message: string, data?: unknown) {
    super(message)
    this.status = status
    this.code = code
    this.data = data
  }
}

/** The body type of a route's success answers (200/201), when it also declares error answers. */
type Success<R> = R extends { status: 200 | 201; json(): Promise<infer T> } ? T : never

/** The JSON body of a successful response, or an ApiError with the server's message. */
export async function ok<R extends { ok: boolean; status: number; json(): Promise<unknown> }>(
  response: Promise<R>,
): Promise<Success<R>> {
  let res: R
  try {
    res = await response
  } catch {
    throw new ApiError(0, 'UNREACHABLE', 'popagent is not reachable; is the server running?')
  }
  if (res.ok) return (await res.json()) as Success<R>
  const body = (await res.json().catch(() => undefined)) as
    { error?: { code?: string; message?: string; data?: unknown } } | undefined
  throw new ApiError(
    res.status,
    body?.error?.code ?? 'HTTP_ERROR',
    body?.error?.message ?? `the server answered ${res.status}`,
    body?.error?.data,
  )
}
