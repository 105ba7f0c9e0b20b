/**
 * A Streamable HTTP MCP server for tests, on loopback: the SDK's McpServer and
 * StreamableHTTPServerTransport, one server per session the way the SDK's examples keep them
 * (an unknown session gets 404, as the specification says). It can stop and start again on the
 * same port, so a client meets a restarted server, and it records what it saw.
 */
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { closerOf, listenOnLoopback } from './loopback-server.ts'
import { registerTestTools } from './mcp-test-tools.ts'

export type McpHttpTestServer = {
  url: string
  port: number
  /** Tool calls the server saw cancelled. */
  aborted: string[]
  /** Resolves when a call of `tool` has started on the server. */
  started(tool: string): Promise<void>
  /** Request headers of every request, for checking credentials. */
  headers: IncomingMessage['headers'][]
  /** The name of every tool called, in order. */
  calls: string[]
  /** Handshakes the server answered. */
  initializations: number
  /** Adds a tool to every live session (each server tells its client the list changed). */
  addTool(name: string): void
  /** Tells every live session's client again that the list changed. */
  notifyToolsChanged(): void
  stop(): Promise<void>
  /** Listens again on the same port, with no sessions: a restarted server. */
  restart(): Promise<void>
}

/** Listens on a free loopback port, or on `socketPath` (a Unix socket) when given. */
export async function startMcpHttpServer(
  options: { socketPath?: string } = {},
): Promise<McpHttpTestServer> {
  const sessions = new Map<
    string,
    { transport: StreamableHTTPServerTransport; server: McpServer }
  >()
  const aborted: string[] = []
  const headers: IncomingMessage['headers'][] = []
  const waiting = new Map<string, Array<() => void>>()
  const extraTools: string[] = []

  const newServer = () => {
    const server = new McpServer({ name: 'popagent-test-http', version: '1.0.0' })
    registerTestTools(server, {
      onAbort: (tool) => aborted.push(tool),
      onStart: (tool) => {
        for (const resolve of waiting.get(tool) ?? []) resolve()
        waiting.delete(tool)
      },
    })
    for (const name of extraTools) addToolTo(server, name)
    return server
  }

  const listener = async (req: IncomingMessage, res: import('node:http').ServerResponse) => {
    headers.push(req.headers)
    const body = req.method === 'POST' ? await readJson(req) : undefined
    const call = body as { method?: string; params?: { name?: string } } | undefined
    if (call?.method === 'tools/call' && call.params?.name) state.calls.push(call.params.name)
    const sessionId = req.headers['mcp-session-id']
    const known = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined
    if (known) return known.transport.handleRequest(req, res, body)
    if (sessionId === undefined && req.method === 'POST' && isInitializeRequest(body)) {
      state.initializations += 1
      const server = newServer()
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, { transport, server })
        },
      })
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId)
      }
      await server.connect(transport)
      return transport.handleRequest(req, res, body)
    }
    res.writeHead(sessionId === undefined ? 400 : 404, { 'content-type': 'application/json' })
    res.end(
      JSON.stringify({
        jsonrpc: '2.0',
        error: { code: -32001, message: 'Session not found' },
        id: null,
      }),
    )
  }

  let http: Server = createServer((req, res) => void listener(req, res))
  let close = closerOf(http)
  let port = 0
  if (options.socketPath) {
    const path = options.socketPath
    await new Promise<void>((resolve) => http.listen(path, resolve))
  } else {
    port = await listenOnLoopback(http)
  }

  const stop = async () => {
    for (const { transport } of sessions.values()) await transport.close().catch(() => {})
    sessions.clear()
    await close()
  }

  const state: McpHttpTestServer = {
    url: options.socketPath ? 'http://localhost/mcp' : `http://127.0.0.1:${port}/mcp`,
    port,
    aborted,
    headers,
    calls: [],
    initializations: 0,
    started: (tool) =>
      new Promise((resolve) => waiting.set(tool, [...(waiting.get(tool) ?? []), resolve])),
    addTool(name) {
      extraTools.push(name)
      for (const { server } of sessions.values()) addToolTo(server, name)
    },
    notifyToolsChanged() {
      for (const { server } of sessions.values()) server.sendToolListChanged()
    },
    stop,
    async restart() {
      http = createServer((req, res) => void listener(req, res))
      close = closerOf(http)
      await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve))
    },
  }
  return state
}

function addToolTo(server: McpServer, name: string): void {
  server.registerTool(
    name,
    { description: `Added later: ${name}`, inputSchema: { value: z.string().optional() } },
    async () => ({ content: [{ type: 'text', text: name }] }),
  )
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  return text ? (JSON.parse(text) as unknown) : undefined
}
