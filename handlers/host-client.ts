import { z } from 'zod'
import { hostRoutes, type HostRoute, type HostRoutes } from '../runtime/contracts/host-api.ts'
import { AppError, type ErrorStatus, HostUnavailable } from '../runtime/errors.ts'
import { REQUEST_ID_HEADER } from '../runtime/request-id.ts'

/**
 * The handlers' only way to the compute host: its internal HTTP API on loopback, authenticated by
 * the shared host token. One method per entry of `hostRoutes` (runtime/contracts/host-api.ts), with
 * its input sent and its answer parsed against that entry's schemas. Every call carries the
 * request's id, so the host's log lines for it can be found from the edge's.
 *
 * One error policy: the host's answers about the request (its 4xx, and a 503 that says it is busy,
 * such as REPO_BRIEF_BUSY) reach the caller as `AppError`s with the host's code, status, message
 * and data. Anything else — no answer, a wrong token, a route this host does not have, a 5xx, an
 * answer of the wrong shape — is a HostUnavailable: the host could not do the work.
 */
export type HostClient = { [N in keyof HostRoutes]: HostMethod<HostRoutes[N]> } & {
  /** The same client, sending this request id with every call. */
  withRequestId: (requestId: string) => HostClient
}

export type CallInit = { signal?: AbortSignal; timeoutMs?: number }
type Input<R> = R extends { input: infer I extends z.ZodType } ? z.input<I> : never
type HostMethod<R> = R extends { stream: true }
  ? // No timeout: a turn streams for as long as it runs, and `signal` (the client's) ends it.
    (input: Input<R>, init: { signal: AbortSignal }) => Promise<Response>
  : R extends { output: infer O extends z.ZodType }
    ? R extends { input: z.ZodType }
      ? (input: Input<R>, init?: CallInit) => Promise<z.output<O>>
      : (init?: CallInit) => Promise<z.output<O>>
    : never

const HostErrorBody = z.object({
  error: z.object({
    code: z.string().min(1),
    message: z.string().min(1),
    data: z.record(z.string(), z.unknown()).optional(),
  }),
})

export function createHostClient(options: {
  url: string
  token: string
  /** How calls are sent: the global fetch (HTTP), or the host's API in this process. */
  fetch?: (url: string, init: RequestInit) => Promise<Response>
  requestId?: string
}): HostClient {
  const doFetch = options.fetch ?? fetch

  /** Sends one call; resolves with the host's 2xx response and throws anything else. */
  async function send(route: HostRoute, input: unknown, init: CallInit): Promise<Response> {
    const signals =
      'timeoutMs' in route ? [AbortSignal.timeout(init.timeoutMs ?? route.timeoutMs)] : []
    if (init.signal) signals.push(init.signal)
    const headers: Record<string, string> = { authorization: `Bearer ${options.token}` }
    if (options.requestId) headers[REQUEST_ID_HEADER] = options.requestId
    if (route.input) headers['content-type'] = 'application/json'
    let response: Response
    try {
      response = await doFetch(`${options.url}${route.path}`, {
        method: route.method,
        headers,
        ...(route.input && { body: JSON.stringify(input) }),
        signal: AbortSignal.any(signals),
      })
    } catch (error) {
      // The caller went away: its own abort, not the host's failure.
      if (init.signal?.aborted) throw error
      throw new HostUnavailable(
        { path: route.path },
        { cause: error, message: describeFetchError(error) },
      )
    }
    if (response.ok) return response
    const answer = HostErrorBody.safeParse(await response.json().catch(() => undefined))
    if (answer.success && aboutTheRequest(response.status, answer.data.error.code)) {
      const { code, message, data } = answer.data.error
      throw new AppError(code, response.status as ErrorStatus, message, data)
    }
    throw unavailable(route, response.status)
  }

  async function call(route: HostRoute, input: unknown, init: CallInit = {}): Promise<unknown> {
    const response = await send(route, input, init)
    if ('stream' in route) return response
    const answer = await response.json().catch((error: unknown) => {
      if (init.signal?.aborted) throw error
    })
    const parsed = route.output.safeParse(answer)
    if (!parsed.success) throw unavailable(route, response.status)
    return parsed.data
  }

  const methods = Object.fromEntries(
    Object.entries(hostRoutes).map(([name, route]: [string, HostRoute]) => [
      name,
      route.input
        ? (input: unknown, init?: CallInit) => call(route, input, init)
        : (init?: CallInit) => call(route, undefined, init),
    ]),
  )
  return {
    ...(methods as Omit<HostClient, 'withRequestId'>),
    withRequestId: (requestId) => createHostClient({ ...options, requestId }),
  }
}

/**
 * Whether a refusal is about the caller's request, and so theirs to hear as it is. A 401 (the
 * edge's host token) or ROUTE_NOT_FOUND (a host of another version) is about the edge instead.
 */
function aboutTheRequest(status: number, code: string): boolean {
  if (status === 503) return true
  return status >= 400 && status < 500 && status !== 401 && code !== 'ROUTE_NOT_FOUND'
}

const unavailable = (route: HostRoute, status: number) =>
  new HostUnavailable(
    { path: route.path, status },
    { message: `the compute host could not ${route.does}` },
  )

function describeFetchError(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return 'the compute host did not answer in time'
  }
  return 'the compute host is not reachable'
}
