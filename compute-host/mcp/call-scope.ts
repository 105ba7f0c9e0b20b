import { AsyncLocalStorage } from 'node:async_hooks'
import type { McpClientError } from './errors.ts'

/**
 * Which call a byte belongs to. The SDK sends each JSON-RPC request from inside our `request()`
 * call, so the transport's `fetch` runs in that call's async context: the bounded fetch
 * (bounded-fetch.ts) finds the call here, ties its POST to the call's signal (an abort closes the
 * stream, not only the JSON-RPC request) and fails exactly that call when its response breaks a
 * bound or the stream is cut. Without it the SDK would log the broken SSE stream and leave the
 * call waiting for its timeout.
 */
export type CallScope = {
  /** Aborted when the call is stopped (the run's signal, a failure found below). */
  readonly signal: AbortSignal
  /** Settles the call with `error`, once; later failures and failures after it settled are ignored. */
  fail(error: McpClientError): void
  /** Whether a response has settled the call (a stream ending after that is not a fault). */
  readonly settled: boolean
}

const scopes = new AsyncLocalStorage<CallScope>()

export function runInCallScope<T>(scope: CallScope, work: () => Promise<T>): Promise<T> {
  return scopes.run(scope, work)
}

export function currentCallScope(): CallScope | undefined {
  return scopes.getStore()
}
