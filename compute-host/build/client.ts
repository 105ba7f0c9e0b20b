import { classifyUrlHost } from '../../runtime/net/address-class.ts'
import { McpConnection, type McpConnectionState } from '../mcp/connection.ts'
import { guardedFetch } from '../mcp/guarded-fetch.ts'
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { McpToolDescriptor } from '../mcp/tool-list.ts'

export type BuildClientStatus =
  | { enabled: false; reason: string }
  | {
      enabled: true
      url: string
      connection: McpConnectionState
      /** The server's operations, once listed. */
      operations: string[] | undefined
    }

/**
 * The AkurAI Build client: the one MCP client room (compute-host/mcp/) over Streamable HTTP at
 * AKURAI_BUILD_URL, the bearer from AKURAI_BUILD_API_KEY (the host's redactor has it from
 * env.ts `hostSecrets`; it is sent in a header and appears in no message). Without the key the
 * client is disabled: it sends nothing and says so, which is a status, not an error.
 *
 * HTTPS, or plain HTTP to loopback only (a local Build), through the SSRF guard either way.
 * Connected on first use, shared by concurrent first callers; bounds of the design: requests
 * 256 KiB, one answer 2 MiB, 10 s to connect, 60 s per call; the run's signal stops a call.
 */
export function createBuildClient(options: {
  url: string
  apiKey: string | undefined
  /** Tests pass their own; the SSRF guard's otherwise. */
  fetch?: FetchLike
}) {
  const url = new URL(options.url)
  const loopback = classifyUrlHost(url.hostname.replace(/^\[(.*)\]$/, '$1'))?.kind === 'loopback'
  const refusal = !options.apiKey
    ? 'AKURAI_BUILD_API_KEY is not set: AkurAI Build is disabled'
    : url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)
      ? `AKURAI_BUILD_URL must be https: (or http: on loopback), not ${url.protocol}`
      : undefined
  const connection = refusal
    ? undefined
    : new McpConnection({
        name: 'akurai-build',
        endpoint: {
          transport: 'http',
          url,
          headers: { Authorization: `Bearer ${options.apiKey}` },
          fetch: options.fetch ?? guardedFetch({ allowLoopback: loopback }),
        },
        limits: { connectTimeoutMs: 10_000, callTimeoutMs: 60_000 },
      })
  let listed: string[] | undefined

  return {
    /** Why Build is off, or undefined when it is configured. */
    disabledReason: refusal,
    connection,
    /** The server's operations (cached by the connection; re-read when it says they changed). */
    async operations(signal?: AbortSignal): Promise<readonly McpToolDescriptor[]> {
      if (!connection) throw new Error(refusal)
      const tools = await connection.listTools(signal ? { signal } : {})
      listed = tools.map((t) => t.name)
      return tools
    },
    /**
     * Lists the operations before a run builds its agents, so each `build-*` tool offers what
     * the server has now. A failure is kept in the status and costs this run its Build tools.
     */
    async refresh(): Promise<void> {
      if (!connection) return
      try {
        const tools = await connection.listTools()
        listed = tools.map((t) => t.name)
      } catch {
        listed = undefined
      }
    },
    /** The operations of the last successful listing; undefined before one or after a failure. */
    knownOperations(): ReadonlySet<string> | undefined {
      return listed && new Set(listed)
    },
    status(): BuildClientStatus {
      if (!connection) return { enabled: false, reason: refusal! }
      return { enabled: true, url: url.origin, connection: connection.state(), operations: listed }
    },
    close: () => connection?.close() ?? Promise.resolve(),
  }
}

export type BuildClient = ReturnType<typeof createBuildClient>
