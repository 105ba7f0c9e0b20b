import type { IncomingMessage } from 'node:http'
import type { HookOutcome } from './hook-outcome.ts'
import { MAX_OUTPUT_BYTES } from '../../runtime/hooks/verdict.ts'
import { outboundRequest, OutboundRefused, type Resolver } from '../net/outbound-guard.ts'

/**
 * Calls an HTTP hook: the event as a JSON POST, no redirects followed (a redirect is a failure,
 * so a hook cannot bounce the event somewhere else), the whole exchange within the timeout, the
 * answer read up to 64 KiB. Any status but 2xx is a failure. The URL was checked when the hook
 * was stored (https, or loopback with the owner's consent); the address it leads to now is
 * checked again as the connection is made (compute-host/net/outbound-guard.ts), since a name can
 * resolve elsewhere than it did then.
 */
export async function runHttpHook(options: {
  url: string
  body: string
  timeoutMs: number
  allowLoopback: boolean
  /** Stands in for DNS in tests. */
  resolve?: Resolver
}): Promise<HookOutcome> {
  const signal = AbortSignal.timeout(options.timeoutMs)
  const timedOut = (): HookOutcome => ({
    kind: 'failed',
    failure: 'timeout',
    reason: `the hook did not answer within ${options.timeoutMs} ms`,
  })
  let response: IncomingMessage
  try {
    response = await outboundRequest(
      new URL(options.url),
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: options.body,
        signal,
      },
      { allowLoopback: options.allowLoopback },
      options.resolve,
    )
  } catch (error) {
    if (error instanceof OutboundRefused)
      return {
        kind: 'failed',
        failure: 'http_error',
        reason: `the hook was not called: ${error.message}`,
      }
    if (signal.aborted) return timedOut()
    return {
      kind: 'failed',
      failure: 'http_error',
      reason: `the hook could not be reached: ${(error as Error).message}`,
    }
  }
  const status = response.statusCode ?? 0
  try {
    if (status < 200 || status > 299) {
      response.destroy()
      return { kind: 'failed', failure: 'http_status', reason: `the hook answered HTTP ${status}` }
    }
    const text = await readBounded(response)
    if (text === undefined)
      return {
        kind: 'failed',
        failure: 'oversize',
        reason: `the hook answered more than ${MAX_OUTPUT_BYTES} bytes`,
      }
    return { kind: 'answer', output: text }
  } catch {
    if (signal.aborted) return timedOut()
    return { kind: 'failed', failure: 'http_error', reason: 'the hook broke off its answer' }
  }
}

async function readBounded(response: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > MAX_OUTPUT_BYTES) {
      response.destroy()
      return undefined
    }
    chunks.push(chunk)
  }
  // A body cut short ends the iteration without an error in some Node versions: say so.
  if (!response.complete) throw new Error('the answer was cut short')
  return new TextDecoder().decode(Buffer.concat(chunks))
}
