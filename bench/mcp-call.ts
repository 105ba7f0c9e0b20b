/**
 * What popagent adds to an MCP tool call (X8): the same `echo` call on the same loopback MCP
 * server (the SDK's McpServer over Streamable HTTP, test/support/mcp-http-server.ts), made
 * directly with the SDK's Client, and through popagent as an agent's tool runs it (the Mastra
 * tool from compute-host/mcp/mcp-tool.ts: input validation, the connection with its bounds and
 * call scope, the SSRF guard's fetch, strict result parsing). Rounds alternate which side goes
 * first; the figure is the median over rounds of (popagent p50 − direct p50).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { McpConnection } from '../compute-host/mcp/connection.ts'
import { guardedFetch } from '../compute-host/mcp/guarded-fetch.ts'
import { createMcpTool } from '../compute-host/mcp/mcp-tool.ts'
import { startMcpHttpServer } from '../test/support/mcp-http-server.ts'
import type { BenchMode, BenchResult } from './result.ts'
import { addedPerCall } from './added-per-call.ts'

const GOAL_MS = 5

export async function benchMcpCall({ quick }: BenchMode): Promise<BenchResult[]> {
  const options = quick ? { rounds: 2, calls: 20 } : { rounds: 8, calls: 300 }
  const server = await startMcpHttpServer()
  const direct = new Client({ name: 'bench-direct', version: '1' })
  const connection = new McpConnection({
    name: 'bench',
    endpoint: { transport: 'http', url: server.url, fetch: guardedFetch({ allowLoopback: true }) },
  })
  try {
    await direct.connect(new StreamableHTTPClientTransport(new URL(server.url)))
    const echo = (await connection.listTools()).find((t) => t.name === 'echo')!
    const tool = createMcpTool({
      serverId: 'bench',
      name: 'bench__echo',
      descriptor: echo,
      connection,
      timeoutMs: 60_000,
    }) as unknown as { execute: (input: unknown, context: unknown) => Promise<unknown> }
    const input = { text: 'hello' }
    const sides = {
      direct: () => direct.callTool({ name: 'echo', arguments: input }),
      popagent: () => tool.execute(input, {}),
    }
    const { addedMs, directP50, popagentP50 } = await addedPerCall({
      rounds: options.rounds,
      calls: options.calls,
      warmUpCalls: options.calls,
      sides,
    })
    return [
      {
        name: 'MCP tool call: added by popagent (p50)',
        goal: `≤ ${GOAL_MS} ms`,
        ratio: Number(addedMs.toFixed(2)),
        unit: 'ms',
        met: addedMs <= GOAL_MS,
        detail:
          `loopback Streamable HTTP echo, ${options.calls} calls × ${options.rounds} rounds: ` +
          `direct SDK p50 ${directP50.toFixed(2)} ms, through popagent ` +
          `${popagentP50.toFixed(2)} ms (SSRF-guarded fetch, bounds, strict parsing)`,
      },
    ]
  } finally {
    await direct.close().catch(() => {})
    await connection.close()
    await server.stop()
  }
}
