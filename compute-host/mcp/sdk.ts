/**
 * The MCP SDK's values (client, transports, error classes, schemas), imported on the first
 * connection rather than with the host.
 *
 * Why: the SDK builds its protocol's zod schemas and loads Ajv when imported, about 3 MB of heap
 * that a host with no browser server, no MCP server and no Build key never uses; `popagent start`
 * idles under its memory goal without them (docs/benchmarks.md, footprint). The rest of the room
 * imports only the SDK's types, which cost nothing at run time.
 *
 * Loaded once and kept; a failed import is forgotten, so the next connection tries again.
 */
async function importSdk() {
  const [client, http, stdio, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ])
  return {
    Client: client.Client,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    StreamableHTTPError: http.StreamableHTTPError,
    StdioClientTransport: stdio.StdioClientTransport,
    ErrorCode: types.ErrorCode,
    McpError: types.McpError,
    ResultSchema: types.ResultSchema,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
  }
}

export type McpSdk = Awaited<ReturnType<typeof importSdk>>

let loading: Promise<McpSdk> | undefined
let loaded: McpSdk | undefined

export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= importSdk().then(
    (sdk) => (loaded = sdk),
    (error: unknown) => {
      loading = undefined
      throw error
    },
  )
  return loading
}

/** The SDK once a connection has loaded it: until then no error can be one of its classes. */
export function loadedMcpSdk(): McpSdk | undefined {
  return loaded
}
