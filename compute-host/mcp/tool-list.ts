import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import { McpClientError } from './errors.ts'

/**
 * One tool as a server listed it, kept as much as a caller needs: the name it is called by, its
 * description, its JSON Schema input (always an object schema, per MCP) and the hints it claims.
 * Hints are the server's claims, not facts: nothing here trusts `readOnlyHint`.
 */
export type McpToolDescriptor = {
  name: string
  title?: string
  description: string
  inputSchema: Record<string, unknown>
  outputSchema?: Record<string, unknown>
  annotations?: Record<string, unknown>
}

/** MCP's own rule for tool names (SEP-986): 1–128 of these characters. */
const TOOL_NAME = /^[A-Za-z0-9_.\-/]{1,128}$/
const DESCRIPTION_CHARS = 8_000
/** A tool's input schema goes to the model with every request: bounded like a message. */
const SCHEMA_BYTES = 64 * 1024

/**
 * Checks a listed page set as a whole: names valid and unique, the count within `maxTools`. A
 * list that breaks a rule is refused whole (`malformed`), never trimmed into something the
 * server did not say.
 */
export function toToolDescriptors(tools: readonly Tool[], maxTools: number): McpToolDescriptor[] {
  if (tools.length > maxTools) {
    throw new McpClientError(
      'malformed',
      `the server lists ${tools.length} tools, over ${maxTools}`,
    )
  }
  const seen = new Set<string>()
  return tools.map((tool) => {
    if (!TOOL_NAME.test(tool.name)) {
      throw new McpClientError(
        'malformed',
        `the server lists a tool named ${JSON.stringify(tool.name.slice(0, 140))}, which MCP does not allow`,
      )
    }
    if (Buffer.byteLength(JSON.stringify(tool.inputSchema)) > SCHEMA_BYTES) {
      throw new McpClientError(
        'malformed',
        `the input schema of ${tool.name} is over ${SCHEMA_BYTES} bytes`,
      )
    }
    if (seen.has(tool.name)) {
      throw new McpClientError('malformed', `the server lists the tool ${tool.name} twice`)
    }
    seen.add(tool.name)
    const descriptor: McpToolDescriptor = {
      name: tool.name,
      description: (tool.description ?? '').slice(0, DESCRIPTION_CHARS),
      inputSchema: tool.inputSchema as Record<string, unknown>,
    }
    if (tool.title !== undefined) descriptor.title = tool.title
    if (tool.outputSchema !== undefined) {
      descriptor.outputSchema = tool.outputSchema as Record<string, unknown>
    }
    if (tool.annotations !== undefined) {
      descriptor.annotations = tool.annotations as Record<string, unknown>
    }
    return descriptor
  })
}
