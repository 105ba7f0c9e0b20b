import type { HookOutcome } from './hook-outcome.ts'
import { MAX_OUTPUT_BYTES } from '../../runtime/hooks/verdict.ts'

/**
 * Calls an HTTP hook: the event as a JSON POST, no redirects followed (a redirect is a failure,
 * so a hook cannot bounce the event somewhere else), the whole exchange within the timeout, the
 * answer read up to 64 KiB. Any status but 2xx is a failure. The URL was checked when the hook
 * was stored (https, or loopback with the owner's consent).
 */
export async function runHttpHook(options: {
  url: string
  body: string
  timeoutMs: number
}): Promise<HookOutcome> {
  let response: Response
  try {
    response = await fetch(options.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: options.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs),
    })
  } catch (error) {
    const name = (error as Error).name
    if (name === 'TimeoutError' || name === 'AbortError')
      return {
        kind: 'failed',
        failure: 'timeout',
        reason: `the hook did not answer within ${options.timeoutMs} ms`,
      }
    return {
      kind: 'failed',
      failure: 'http_error',
      reason: `the hook could not be reached: ${(error as Error).message}`,
    }
  }
  try {
    if (response.status < 200 || response.status > 299) {
      await response.body?.cancel()
      return {
        kind: 'failed',
        failure: 'http_status',
        reason: `the hook answered HTTP ${response.status}`,
      }
    }
    const text = await readBounded(response)
    if (text === undefined)
      return {
        kind: 'failed',
        failure: 'oversize',
        reason: `the hook answered more than ${MAX_OUTPUT_BYTES} bytes`,
      }
    return { kind: 'answer', output: text }
  } catch (error) {
    const name = (error as Error).name
    if (name === 'TimeoutError' || name === 'AbortError')
      return {
        kind: 'failed',
        failure: 'timeout',
        reason: `the hook did not answer within ${options.timeoutMs} ms`,
      }
    return { kind: 'failed', failure: 'http_error', reason: 'the hook broke off its answer' }
  }
}

async function readBounded(response: Response): Promise<string | undefined> {
  const reader = response.body?.getReader()
  if (!reader) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.length
    if (size > MAX_OUTPUT_BYTES) {
      await reader.cancel()
      return undefined
    }
    chunks.push(value)
  }
  return new TextDecoder().decode(Buffer.concat(chunks))
}
