// gateway/: HTTP to the model gateway (catalog, probe, redacting fetch). Models live in models/.
/**
 * `GET <gateway>/models` with the gateway key and a time bound: the one request both the health
 * probe and the model catalog make. A request that never got an answer throws
 * `GatewayNotAnswering` (saying whether it timed out); any HTTP answer is returned for the caller.
 */
export class GatewayNotAnswering extends Error {
  readonly timedOut: boolean
  constructor(url: string, timedOut: boolean, timeoutMs: number, cause: unknown) {
    super(
      timedOut ? `no answer within ${timeoutMs} ms` : `cannot reach the model gateway at ${url}`,
      { cause },
    )
    this.name = 'GatewayNotAnswering'
    this.timedOut = timedOut
  }
}

export async function requestModels(options: {
  url: string
  apiKey?: string
  fetch?: typeof fetch
  timeoutMs: number
}): Promise<Response> {
  const doFetch = options.fetch ?? fetch
  try {
    return await doFetch(`${options.url.replace(/\/+$/, '')}/models`, {
      headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
      signal: AbortSignal.timeout(options.timeoutMs),
    })
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError'
    throw new GatewayNotAnswering(options.url, timedOut, options.timeoutMs, error)
  }
}
