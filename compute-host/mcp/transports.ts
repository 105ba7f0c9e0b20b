import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { boundedFetch } from './bounded-fetch.ts'
import type { McpLimits } from './limits.ts'
import type { McpSdk } from './sdk.ts'

/**
 * Where a server is and how to reach it. The caller decides what is allowed (HTTPS or loopback,
 * the SSRF guard as `fetch`, the sandbox around `argv`); this room only connects to it.
 */
export type McpEndpoint =
  | {
      transport: 'http'
      url: URL | string
      /** Sent on every request (an `Authorization` bearer, an API-key header). */
      headers?: Record<string, string>
      /** How bytes leave: the SSRF guard's fetch, a Unix socket's (node-http-fetch.ts). */
      fetch?: FetchLike
    }
  | {
      transport: 'stdio'
      /** The program and its arguments; for a sandboxed server, the sandbox's whole argv. */
      argv: readonly string[]
      /** The whole environment the process gets, nothing inherited beyond what MCP's SDK adds. */
      env?: Record<string, string>
      cwd?: string
    }

export type OpenedTransport = {
  transport: Transport
  /** The last bytes a stdio server wrote to stderr (bounded), for the state report. */
  stderrTail(): string
}

/** The transport for `endpoint`, made with the SDK the connection loaded (sdk.ts). */
export function openTransport(
  sdk: McpSdk,
  endpoint: McpEndpoint,
  limits: McpLimits,
): OpenedTransport {
  if (endpoint.transport === 'http') {
    const transport = new sdk.StreamableHTTPClientTransport(new URL(endpoint.url), {
      requestInit: endpoint.headers ? { headers: endpoint.headers } : {},
      fetch: boundedFetch(endpoint.fetch ?? fetch, limits),
      // The standalone GET stream (server notifications) is re-opened a few times; a server that
      // stays away is found by the next call, which reconnects under our own backoff.
      reconnectionOptions: {
        initialReconnectionDelay: 1_000,
        maxReconnectionDelay: 10_000,
        reconnectionDelayGrowFactor: 2,
        maxRetries: 2,
      },
    })
    return { transport, stderrTail: () => '' }
  }
  const [command, ...args] = endpoint.argv
  if (!command) throw new TypeError('a stdio MCP server needs a program to run')
  const transport = new sdk.StdioClientTransport({
    command,
    args,
    ...(endpoint.env ? { env: endpoint.env } : {}),
    ...(endpoint.cwd ? { cwd: endpoint.cwd } : {}),
    stderr: 'pipe',
    // One line is one message; the SDK drops the buffer and closes past this bound, and the
    // connection reports that as `response-too-large` (connection.ts).
    maxBufferSize: limits.maxResponseBytes,
  })
  let tail = ''
  transport.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-limits.maxStderrBytes)
  })
  return { transport, stderrTail: () => tail }
}
