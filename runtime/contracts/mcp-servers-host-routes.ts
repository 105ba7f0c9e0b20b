import type { HostRoute } from './host-api.ts'
import { McpAgentTools, McpAgentToolsBody, McpServerStates } from './mcp-servers.ts'

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
  /**
   * Every server's tools as one agent would get them (the agent editor's list). Unlike the
   * states this connects: the tools are only known by asking each enabled server.
   */
  mcpAgentTools: {
    method: 'POST',
    path: '/internal/mcp-servers/agent-tools',
    input: McpAgentToolsBody,
    output: McpAgentTools,
    timeoutMs: 20_000,
    does: "list the agent's MCP tools",
  },
} as const satisfies Record<string, HostRoute>
