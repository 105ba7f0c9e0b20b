import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js'
import { Agent, fetch as undiciFetch } from 'undici'
import { BrowserError, type BrowserContentPart, type BrowserLink, type OpenLink } from './types.ts'

/**
 * One MCP session with the browser server over Streamable HTTP on its Unix socket: the SDK's
 * client with a `fetch` whose connections go to the socket (undici's `socketPath`); the URL's
 * host is only a name. This is the room's minimal connection, kept behind `BrowserLink` so it can
 * be replaced by the shared MCP client (compute-host/mcp/) as one file.
 *
 * Bounds: the handshake and a listing get `connectTimeoutMs`, each call `callTimeoutMs` (the
 * run's signal ends it sooner). A lost connection is reported once through `onLost`.
 */
export function socketLinkOpener(options: {
  socketPath: string
  connectTimeoutMs?: number
  callTimeoutMs?: number
}): OpenLink {
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000
  const callTimeoutMs = options.callTimeoutMs ?? 60_000
  return async (signal) => {
    const dispatcher = new Agent({ connect: { socketPath: options.socketPath } })
    const fetch: FetchLike = (url, init) =>
      undiciFetch(url, { ...(init as object), dispatcher }) as unknown as Promise<Response>
    const transport = new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), {
      fetch,
      // Reconnecting is the room's (server-connection.ts), with its own state; not the SDK's.
      reconnectionOptions: {
        maxReconnectionDelay: 1,
        initialReconnectionDelay: 1,
        reconnectionDelayGrowFactor: 1,
        maxRetries: 0,
      },
    })
    const client = new Client({ name: 'popagent-browser', version: '1' })
    const lostListeners: ((reason: string) => void)[] = []
    let closing = false
    let lost = false
    const reportLost = (reason: string) => {
      if (closing || lost) return
      lost = true
      for (const listener of lostListeners) listener(reason)
    }
    client.onclose = () => reportLost('the browser server closed the connection')
    try {
      await client.connect(transport, { timeout: connectTimeoutMs, ...(signal && { signal }) })
    } catch (error) {
      await dispatcher.close().catch(() => {})
      throw new BrowserError(
        'BROWSER_UNAVAILABLE',
        `cannot reach the browser server: ${reason(error)}`,
      )
    }
    const link: BrowserLink = {
      get serverInfo() {
        const info = client.getServerVersion()
        return info ? { name: info.name, version: info.version } : undefined
      },
      get mcpSessionId() {
        return transport.sessionId
      },
      async listOperations(listSignal) {
        const operations = []
        let cursor: string | undefined
        do {
          const page = await client.listTools(cursor ? { cursor } : undefined, {
            timeout: connectTimeoutMs,
            ...(listSignal && { signal: listSignal }),
          })
          for (const tool of page.tools) {
            operations.push({
              name: tool.name,
              description: tool.description ?? '',
              inputSchema: tool.inputSchema as Record<string, unknown>,
            })
          }
          cursor = page.nextCursor
        } while (cursor && operations.length < 1_000)
        return operations
      },
      async call(name, args, callSignal) {
        try {
          const result = await client.callTool({ name, arguments: args }, undefined, {
            timeout: callTimeoutMs,
            ...(callSignal && { signal: callSignal }),
          })
          const content = Array.isArray(result.content)
            ? (result.content as BrowserContentPart[])
            : []
          return { content, isError: result.isError === true }
        } catch (error) {
          if (callSignal?.aborted) throw new BrowserError('BROWSER_ABORTED', 'the call was stopped')
          const message = reason(error)
          // A transport failure (socket gone, stream cut) is a lost connection, not a tool error.
          if (/fetch failed|ECONNREFUSED|ENOENT|socket|terminated|closed/i.test(message)) {
            reportLost(message)
            throw new BrowserError(
              'BROWSER_CONNECTION_LOST',
              `the browser server went away: ${message}`,
            )
          }
          throw new BrowserError('BROWSER_CALL_FAILED', message)
        }
      },
      onLost(listener) {
        lostListeners.push(listener)
      },
      async close() {
        closing = true
        await transport.terminateSession().catch(() => {})
        await client.close().catch(() => {})
        await dispatcher.close().catch(() => {})
      },
    }
    return link
  }
}

function reason(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause
    const code =
      cause && typeof cause === 'object' && 'code' in cause ? ` (${String(cause.code)})` : ''
    return `${error.message}${code}`
  }
  return String(error)
}
