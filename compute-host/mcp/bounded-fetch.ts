import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js'
import { currentCallScope, type CallScope } from './call-scope.ts'
import { McpClientError } from './errors.ts'

export type FetchBounds = { maxRequestBytes: number; maxResponseBytes: number }

/**
 * Wraps the transport's fetch so no message crosses a bound unnoticed:
 *
 * - A request body over `maxRequestBytes` is refused before it is sent.
 * - A response is counted while it is read and cancelled at the first byte past the bound: a
 *   JSON body as a whole, an SSE stream per event (a stream stays open across many messages, and
 *   it is one message that must not be too large). The call that sent it fails with
 *   `response-too-large` (call-scope.ts).
 * - A request's POST follows its call's signal, so stopping a call closes its stream too.
 * - A stream cut before the call got its answer (the server died mid-call) fails the call with
 *   `connection-lost` at once, instead of leaving it to time out.
 */
export function boundedFetch(base: FetchLike, bounds: FetchBounds): FetchLike {
  return async (url, init) => {
    const scope = currentCallScope()
    const body = init?.body
    if (typeof body === 'string' && Buffer.byteLength(body) > bounds.maxRequestBytes) {
      throw new McpClientError(
        'request-too-large',
        `the request is ${Buffer.byteLength(body)} bytes, over the ${bounds.maxRequestBytes}-byte bound`,
      )
    }
    // Only a request (method and id) follows the call's signal: the `notifications/cancelled`
    // sent because the call was stopped must still get out.
    const followsCall = scope !== undefined && !scope.signal.aborted && isRequest(body)
    const signal = followsCall ? joinSignals(init?.signal ?? undefined, scope.signal) : init?.signal
    const response = await base(url, { ...init, signal })
    if (!response.body) return response
    const eventStream = (response.headers.get('content-type') ?? '').includes('text/event-stream')
    const counted = countedBody(
      response.body,
      bounds.maxResponseBytes,
      eventStream,
      followsCall ? scope : undefined,
    )
    return new Response(counted, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    })
  }
}

function isRequest(body: unknown): boolean {
  if (typeof body !== 'string') return false
  try {
    const message = JSON.parse(body) as unknown
    return typeof message === 'object' && message !== null && 'method' in message && 'id' in message
  } catch {
    return false
  }
}

function joinSignals(a: AbortSignal | undefined, b: AbortSignal): AbortSignal {
  return a ? AbortSignal.any([a, b]) : b
}

const LF = 0x0a
const CR = 0x0d

/**
 * Passes the body through while counting it: per SSE event (reset at each blank line) or in
 * total. Past the bound the stream errors and the call fails with `response-too-large`; a body
 * that breaks underneath (socket reset, server killed) fails it with `connection-lost`.
 */
function countedBody(
  source: ReadableStream<Uint8Array>,
  max: number,
  perEvent: boolean,
  scope: CallScope | undefined,
): ReadableStream<Uint8Array> {
  const reader = source.getReader()
  let count = 0
  let previous = -1
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let next: ReadableStreamReadResult<Uint8Array>
      try {
        next = await reader.read()
      } catch (error) {
        scope?.fail(
          new McpClientError('connection-lost', 'the connection to the server broke mid-answer', {
            cause: error,
          }),
        )
        controller.error(error)
        return
      }
      if (next.done) {
        controller.close()
        if (scope && perEvent) failIfUnanswered(scope)
        return
      }
      const chunk = next.value
      let over = false
      if (!perEvent) {
        count += chunk.byteLength
        over = count > max
      } else {
        for (const byte of chunk) {
          count += 1
          if (count > max) {
            over = true
            break
          }
          // An event ends at an empty line: LF LF (a CR before an LF changes nothing here).
          if (byte === LF && previous === LF) count = 0
          if (byte !== CR) previous = byte
        }
      }
      if (over) {
        const error = new McpClientError(
          'response-too-large',
          `a message from the server passed the ${max}-byte bound and was dropped`,
        )
        scope?.fail(error)
        controller.error(error)
        void reader.cancel(error).catch(() => {})
        return
      }
      controller.enqueue(chunk)
    },
    cancel(reason) {
      return reader.cancel(reason)
    },
  })
}

/**
 * The stream ended cleanly. The answer, if it came, is being parsed right now, a few promise
 * steps behind; a timer runs after those, and only then is a call still waiting called orphaned.
 */
function failIfUnanswered(scope: CallScope): void {
  setTimeout(() => {
    if (!scope.settled) {
      scope.fail(
        new McpClientError('connection-lost', 'the server closed the stream without answering'),
      )
    }
  }, 50).unref()
}
