import type { Backoff } from '../../runtime/net/retry-after.ts'

/**
 * The bounds of one MCP connection. Defaults follow the design (section 4): a request ≤ 256 KiB,
 * one server message ≤ 2 MiB (JSON body, SSE event or stdio line), 10 s to connect and list, 60 s
 * per call. A server that needs more gets it from its owner's configuration, never from itself.
 */
export type McpLimits = {
  /** Bytes of one JSON-RPC message we send; a larger one fails before it leaves. */
  maxRequestBytes: number
  /** Bytes of one message the server sends; reading stops at the first byte past it. */
  maxResponseBytes: number
  /** The handshake (spawn or first POST, `initialize`, `initialized`). */
  connectTimeoutMs: number
  /** One `tools/list` page. */
  listTimeoutMs: number
  /** One `tools/call`, unless the caller passes its own. */
  callTimeoutMs: number
  /** Tools kept from one server; a longer list is refused as malformed, not cut silently. */
  maxTools: number
  /** The tail of a stdio server's stderr kept for the state report. */
  maxStderrBytes: number
  /** Waits between failed connection attempts. */
  reconnect: Backoff
}

export const DEFAULT_MCP_LIMITS: McpLimits = {
  maxRequestBytes: 256 * 1024,
  maxResponseBytes: 2 * 1024 * 1024,
  connectTimeoutMs: 10_000,
  listTimeoutMs: 10_000,
  callTimeoutMs: 60_000,
  maxTools: 512,
  maxStderrBytes: 8 * 1024,
  reconnect: { baseMs: 1_000, maxMs: 60_000 },
}

export function mcpLimits(overrides: Partial<McpLimits> = {}): McpLimits {
  return { ...DEFAULT_MCP_LIMITS, ...overrides }
}
