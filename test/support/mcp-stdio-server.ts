/**
 * A stdio MCP server for tests: the SDK's McpServer with the test tools, over stdin/stdout.
 * Cancellations are written to stderr ("aborted slow"), where the client's state report shows
 * the tail. Run as: node test/support/mcp-stdio-server.ts
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { registerTestTools } from './mcp-test-tools.ts'

const server = new McpServer({ name: 'popagent-test-stdio', version: '1.0.0' })
registerTestTools(server, {
  onStart: (tool) => process.stderr.write(`started ${tool}\n`),
  onAbort: (tool) => process.stderr.write(`aborted ${tool}\n`),
})
await server.connect(new StdioServerTransport())
