import { parseRetryAfter } from '../../runtime/net/retry-after.ts'
import { outboundRequest, OutboundRefused, type OutboundPolicy } from '../net/outbound-guard.ts'
import { PermanentSendError, RateLimitedError, TransientSendError } from './types.ts'

/**
 * Every call a channel adapter makes to its service, through the one outbound guard: the owner
 * names these URLs (a callback URL, an API base URL), so they are resolved and judged at connect
 * time like an HTTP hook's, and loopback is called only with the owner's `allowLoopback`.
 */
export type ChannelResponse = {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
}

const TIMEOUT_MS = 15_000
const MAX_RESPONSE_BYTES = 1_048_576

export async function channelFetch(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string },
  policy: OutboundPolicy,
  signal: AbortSignal,
): Promise<ChannelResponse> {
  const timeout = AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)])
  let response
  try {
    response = await outboundRequest(
      new URL(url),
      {
        method: init.method ?? 'POST',
        headers: init.headers ?? {},
        body: init.body ?? '',
        signal: timeout,
      },
      policy,
    )
  } catch (error) {
    // A refused address will be refused again: permanent, and it says why.
    if (error instanceof OutboundRefused) throw new PermanentSendError(error.message)
    throw new TransientSendError(
      `could not reach ${new URL(url).host}: ${(error as Error).message}`,
    )
  }
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of response) {
    size += (chunk as Buffer).length
    if (size > MAX_RESPONSE_BYTES) {
      response.destroy()
      break
    }
    chunks.push(chunk as Buffer)
  }
  return {
    status: response.statusCode ?? 0,
    headers: response.headers,
    text: Buffer.concat(chunks).toString('utf8'),
  }
}

/**
 * The shared reading of an HTTP answer to a send: 2xx is sent; 429 waits as long as the service
 * says (`retryAfterMs` from its body, else its Retry-After header); 5xx and 408 are transient;
 * anything else is permanent.
 */
export function judgeSend(response: ChannelResponse, what: string, retryAfterMs?: number): void {
  const { status } = response
  if (status >= 200 && status < 300) return
  const header = response.headers['retry-after']
  const given = retryAfterMs ?? parseRetryAfter(Array.isArray(header) ? header[0] : header)
  const detail = `${what}: HTTP ${status}`
  if (status === 429) throw new RateLimitedError(detail, given)
  if (status >= 500 || status === 408) throw new TransientSendError(detail, given)
  throw new PermanentSendError(detail)
}
