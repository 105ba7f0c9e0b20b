/**
 * A stdio MCP server for tests: the SDK's McpServer with the test tools, over stdin/stdout.
 * Cancellations are written to stderr ("aborted slow"), where the client's state report shows
 * the tail. `env-hash` says what it got in an environment variable as a SHA-256 (a test compares
 * the hash: the value itself must not travel back through results). Run as:
 * node test/support/mcp-stdio-server.ts
 */
import { createHash } from 'node:crypto'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'
import { registerTestTools } from './mcp-test-tools.ts'

const server = new McpServer({ name: 'popagent-test-stdio', version: '1.0.0' })
registerTestTools(server, {
  onStart: (tool) => process.stderr.write(`started ${tool}\n`),
  onAbort: (tool) => process.stderr.write(`aborted ${tool}\n`),
})
server.registerTool(
  'env-hash',
  { description: "The SHA-256 of a variable's value", inputSchema: { name: z.string() } },
  async ({ name }) => {
    const value = process.env[name]
    const text =
      value === undefined ? 'unset' : `sha256:${createHash('sha256').update(value).digest('hex')}`
    return { content: [{ type: 'text', text }] }
  },
)
await server.connect(new StdioServerTransport())
