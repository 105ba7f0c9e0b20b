/**
 * Every way an MCP call can fail, as one typed error with a stable code. A caller branches on
 * `code` (a tool shows the model a short reason; health shows the last one), never on a message,
 * and never gets the server's raw bytes as if they were a result.
 *
 * - `unavailable`: no connection could be made (refused, spawn failed, handshake failed, or a
 *   reconnect is still backing off: `retryAt` says when the next attempt is allowed).
 * - `connection-lost`: the server went away while the call was in flight.
 * - `timeout`: the call ran past its time; the server was sent `notifications/cancelled`.
 * - `aborted`: the caller (the run) stopped it; the server was sent `notifications/cancelled`.
 * - `request-too-large`: our request was over the size bound and was not sent.
 * - `response-too-large`: one message from the server was over the size bound; it was dropped
 *   while being read.
 * - `malformed`: the server answered something that is not what MCP allows (bad JSON-RPC, a
 *   content part of an unknown type, bad base64, a tool list that breaks the rules).
 * - `tool-error`: the tool ran and reported failure (`isError: true`); the message carries its
 *   text, bounded.
 * - `protocol`: a JSON-RPC error answer (unknown tool, invalid params, …).
 * - `unauthorized`: 401/403 from an HTTP server (configuration, not a transient fault).
 */
export type McpErrorCode =
  | 'unavailable'
  | 'connection-lost'
  | 'timeout'
  | 'aborted'
  | 'request-too-large'
  | 'response-too-large'
  | 'malformed'
  | 'tool-error'
  | 'protocol'
  | 'unauthorized'

/** Codes after which the same call may succeed later without anything changing on our side. */
const TRANSIENT: ReadonlySet<McpErrorCode> = new Set(['unavailable', 'connection-lost', 'timeout'])

export class McpClientError extends Error {
  override name = 'McpClientError'
  readonly code: McpErrorCode
  /** For `unavailable` while backing off: the earliest time a reconnect is tried. */
  readonly retryAt: Date | undefined

  constructor(code: McpErrorCode, message: string, options?: { cause?: unknown; retryAt?: Date }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.retryAt = options?.retryAt
  }

  get transient(): boolean {
    return TRANSIENT.has(this.code)
  }
}

export function isMcpClientError(error: unknown, code?: McpErrorCode): error is McpClientError {
  return error instanceof McpClientError && (code === undefined || error.code === code)
}
