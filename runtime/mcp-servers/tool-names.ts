/**
 * How an MCP server's tool is named to the model and to hooks: `<server id>__<tool>`, the tool's
 * name with every character models refuse turned into `_`, 64 characters at most (the
 * OpenAI-compatible rule, the strictest). A server id has no `__`, so the split is unambiguous.
 */
const MODEL_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/
const MCP_PREFIX = /^[a-z][a-z0-9-]{0,23}__/

export function mcpToolName(serverId: string, tool: string): string | { refused: string } {
  const name = `${serverId}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`
  return MODEL_TOOL_NAME.test(name)
    ? name
    : { refused: `"${tool}" of ${serverId} makes a tool name longer than 64 characters` }
}

/** Whether a name (or a matcher's prefix) is shaped like an MCP server's tool. */
export function looksLikeMcpToolName(name: string): boolean {
  return MCP_PREFIX.test(name)
}
