import { McpConnection } from '../mcp/connection.ts'
import { McpClientError } from '../mcp/errors.ts'
import { unixSocketFetch } from '../mcp/node-http-fetch.ts'
import type { McpToolDescriptor } from '../mcp/tool-list.ts'
import { BrowserError, type BrowserLink, type BrowserOperation, type OpenLink } from './types.ts'

const toOperation = (t: McpToolDescriptor): BrowserOperation => ({
  name: t.name,
  description: t.description,
  inputSchema: t.inputSchema,
})

/**
 * The browser's MCP sessions through the one MCP client room (compute-host/mcp/): Streamable
 * HTTP on the server's Unix socket. Each link is its own `McpConnection`, so its own MCP session
 * and, on Playwright's server, its own isolated browser context.
 *
 * Two differences from how the room treats an ordinary server, both because a browser session's
 * pages live in its MCP session:
 * - a lost connection ends the link (`onLost`), and the link is closed rather than left to
 *   reconnect silently into a fresh, empty browser;
 * - a tool's own failure (`isError`: an element not found, a browser that cannot start) is a
 *   result the model reads, not an exception.
 *
 * Bounds: one server message up to 8 MiB (a full-page screenshot in base64 passes the room's
 * 2 MiB default), the room's 10 s to connect and 60 s per call otherwise.
 */
export function socketLinkOpener(options: { socketPath: string }): OpenLink {
  return async (signal) => {
    const changedListeners: ((operations: BrowserOperation[]) => void)[] = []
    const connection = new McpConnection({
      name: 'the browser server',
      endpoint: {
        transport: 'http',
        url: 'http://localhost/mcp',
        fetch: unixSocketFetch(options.socketPath),
      },
      limits: { maxResponseBytes: 8 * 1024 * 1024 },
      // The room re-reads the list on the server's `list_changed`; the catalog follows it.
      onToolsChanged: (tools) => {
        const operations = tools.map(toOperation)
        for (const listener of changedListeners) listener(operations)
      },
    })
    const lostListeners: ((reason: string) => void)[] = []
    let ended = false
    const lose = (reason: string) => {
      if (ended) return
      ended = true
      for (const listener of lostListeners) listener(reason)
      void connection.close()
    }
    try {
      // The room connects lazily: listing is the handshake, and what the caller needs first.
      await connection.listTools(signal ? { signal } : {})
    } catch (error) {
      await connection.close()
      throw new BrowserError(
        'BROWSER_UNAVAILABLE',
        `cannot reach the browser server: ${(error as Error).message}`,
      )
    }
    return {
      get serverInfo() {
        return connection.state().serverInfo
      },
      get mcpSessionId() {
        return connection.sessionId()
      },
      async listOperations(listSignal) {
        const tools = await connection.listTools(listSignal ? { signal: listSignal } : {})
        return tools.map(toOperation)
      },
      async call(name, args, callSignal) {
        if (ended) {
          throw new BrowserError('BROWSER_CONNECTION_LOST', 'this browser session was lost')
        }
        try {
          const result = await connection.callTool(
            name,
            args,
            callSignal ? { signal: callSignal } : {},
          )
          return { content: result.content, isError: false }
        } catch (error) {
          if (!(error instanceof McpClientError)) throw error
          if (error.code === 'tool-error') {
            return { content: [{ type: 'text', text: error.message }], isError: true }
          }
          if (error.code === 'aborted')
            throw new BrowserError('BROWSER_ABORTED', 'the call was stopped')
          if (error.code === 'connection-lost' || error.code === 'unavailable') {
            lose(error.message)
            throw new BrowserError(
              'BROWSER_CONNECTION_LOST',
              `the browser server went away: ${error.message}`,
            )
          }
          throw new BrowserError(
            `BROWSER_${error.code.toUpperCase().replace(/-/g, '_')}`,
            error.message,
          )
        }
      },
      onOperationsChanged(listener) {
        changedListeners.push(listener)
      },
      onLost(listener) {
        lostListeners.push(listener)
      },
      async close() {
        ended = true
        await connection.close()
      },
    } satisfies BrowserLink
  }
}
