import type { McpContentPart } from '../mcp/result-parts.ts'

/**
 * The browser room's shared types, kept in one file so the room's other files all import from
 * here and never from each other in a circle.
 *
 * `BrowserLink` is the one thing the room needs from an MCP client: one MCP session with the
 * browser server, made over the shared MCP client room (mcp-link.ts). Kept small, so tests and
 * a different transport can stand behind it without touching the tool, sessions or health.
 */
export type BrowserOperation = {
  name: string
  description: string
  inputSchema: Record<string, unknown>
}

/** A result's parts as the MCP room parsed them (text, image, resource, resource link). */
export type BrowserContentPart = McpContentPart

export type BrowserCallResult = { content: BrowserContentPart[]; isError: boolean }

export type BrowserLink = {
  readonly serverInfo: { name: string; version: string } | undefined
  /** The server's id for this MCP session, when it gave one. */
  readonly mcpSessionId: string | undefined
  listOperations(signal?: AbortSignal): Promise<BrowserOperation[]>
  call(
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<BrowserCallResult>
  /** Called with the new list when the server says its operations changed (`list_changed`). */
  onOperationsChanged(listener: (operations: BrowserOperation[]) => void): void
  /** Called once when the transport closes underneath us (the server went away). */
  onLost(listener: (reason: string) => void): void
  /** Ends the MCP session (the server drops its browser context) and the transport. */
  close(): Promise<void>
}

/** Opens a fresh MCP session with the browser server (after the socket check passed). */
export type OpenLink = (signal?: AbortSignal) => Promise<BrowserLink>

/** Why a browser call did not run or failed, as the model and the routes see it. */
export class BrowserError extends Error {
  override name = 'BrowserError'
  readonly code: string
  constructor(code: string, message: string) {
    super(message)
    this.code = code
  }
}
