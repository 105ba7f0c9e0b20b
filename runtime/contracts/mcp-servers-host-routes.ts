import type { HostRoute } from './host-api.ts'
import { McpServerStates } from './mcp-servers.ts'

/**
 * The host endpoint behind /api/mcp-servers/states: the connections are the host's, so the edge
 * asks it. Asking connects nothing; it reports what the host has. Spread into `hostRoutes`.
 */
export const mcpServerHostRoutes = {
  mcpServerStates: {
    method: 'GET',
    path: '/internal/mcp-servers/states',
    output: McpServerStates,
    timeoutMs: 10_000,
    does: "read the MCP servers' connection states",
  },
} as const satisfies Record<string, HostRoute>
