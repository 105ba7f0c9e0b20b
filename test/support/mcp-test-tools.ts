/**
 * The tools of the test MCP servers (HTTP in mcp-http-server.ts, stdio in mcp-stdio-server.ts),
 * registered with the SDK's own McpServer so the client meets a real MCP implementation.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'

/** A 1×1 red PNG. */
export const RED_DOT_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg=='

export type TestToolEvents = {
  /** Called when a `slow` call's signal fires (the client cancelled it). */
  onAbort(tool: string): void
  /** Called when a `slow` call starts, so a test can stop it once it is running. */
  onStart(tool: string): void
}

export function registerTestTools(server: McpServer, events: TestToolEvents): void {
  server.registerTool(
    'echo',
    { description: 'Repeats the text', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  )
  server.registerTool('picture', { description: 'A red dot' }, async () => ({
    content: [
      { type: 'image', data: RED_DOT_PNG, mimeType: 'image/png' },
      { type: 'text', text: 'a red dot' },
    ],
  }))
  server.registerTool('notes', { description: 'An embedded resource' }, async () => ({
    content: [
      {
        type: 'resource',
        resource: { uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'the notes' },
      },
    ],
  }))
  server.registerTool(
    'big',
    { description: 'Text of the given size', inputSchema: { bytes: z.number().int() } },
    async ({ bytes }) => ({ content: [{ type: 'text', text: 'x'.repeat(bytes) }] }),
  )
  server.registerTool('slow', { description: 'Answers only when cancelled' }, async (extra) => {
    events.onStart('slow')
    await new Promise<void>((resolve) => {
      if (extra.signal.aborted) resolve()
      extra.signal.addEventListener('abort', () => resolve(), { once: true })
    })
    events.onAbort('slow')
    return { content: [{ type: 'text', text: 'too late' }] }
  })
  // The SDK's server checks base64 itself; a wrong MIME type is what gets past it.
  server.registerTool(
    'mislabelled-image',
    { description: 'An image that says it is HTML' },
    async () => ({
      content: [{ type: 'image', data: RED_DOT_PNG, mimeType: 'text/html' }],
    }),
  )
  server.registerTool(
    'reach',
    {
      description: 'Fetches a URL and says whether it got through',
      inputSchema: { url: z.string() },
    },
    async ({ url }) => {
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(3_000) })
        return { content: [{ type: 'text', text: `reached: HTTP ${response.status}` }] }
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause
        return { content: [{ type: 'text', text: `unreachable: ${cause?.code ?? String(error)}` }] }
      }
    },
  )
  server.registerTool('fails', { description: 'Reports a failure' }, async () => ({
    isError: true,
    content: [{ type: 'text', text: 'the widget is broken' }],
  }))
}
