/**
 * What popagent's browser tool adds to one browser call (X5): the same `browser_tabs list` on the
 * same browser MCP server (Playwright's, on Debian's Chromium, on its Unix socket as
 * `popagent browser-server` runs it), made directly with the SDK's Client over the socket, and
 * through the agents' `browser` tool (role policy, the navigation rule, the operation's JSON
 * Schema, the browser session's one-statement call record and takeover check in PostgreSQL, the
 * per-session queue, the MCP room's bounds and strict parts, the redactor over the result).
 * Rounds alternate which side goes first; the figure is the median over rounds of
 * (popagent p50 − direct p50).
 */
import { existsSync } from 'node:fs'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { createBrowser } from '../compute-host/browser/index.ts'
import { createBrowserTool } from '../compute-host/browser/gateway-tool.ts'
import { openNodePostgres } from '../compute-host/database/postgres.ts'
import { createLogger } from '../compute-host/log.ts'
import { unixSocketFetch } from '../compute-host/mcp/node-http-fetch.ts'
import { sessions } from '../db/schema/index.ts'
import { NO_OPT_INS } from '../runtime/browser/policy.ts'
import { createId } from '../runtime/ids.ts'
import { startBrowserMcpServer } from '../test/support/browser-mcp-server.ts'
import { benchDatabase } from './database.ts'
import { BenchSkipped, type BenchMode, type BenchResult } from './result.ts'
import { addedPerCall } from './added-per-call.ts'

const GOAL_MS = 5

export async function benchBrowserCall({ quick }: BenchMode): Promise<BenchResult[]> {
  if (!existsSync('/usr/bin/chromium')) {
    throw new BenchSkipped('/usr/bin/chromium is missing', 'apt-get install chromium')
  }
  const options = quick ? { rounds: 2, calls: 10 } : { rounds: 8, calls: 200 }
  const database = await benchDatabase()
  const handle = openNodePostgres(database.url, { max: 2 })
  const mcp = await startBrowserMcpServer()
  const direct = new Client({ name: 'bench-direct', version: '1' })
  const browser = createBrowser({
    db: handle.db,
    socketPath: mcp.socketPath,
    log: createLogger({ secrets: [], write: () => {} }),
    allowLoopback: false,
  })
  try {
    const chatSessionId = createId('session')
    await handle.db
      .insert(sessions)
      .values({ id: chatSessionId, workspaceId: 'wsp_default', title: 'bench' })
    await direct.connect(
      new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), {
        fetch: unixSocketFetch(mcp.socketPath),
      }),
    )
    const tool = createBrowserTool({
      catalog: await browser.server.catalog(),
      sessions: browser.sessions,
      role: 'read-only',
      optIns: NO_OPT_INS,
      navigation: { allowLoopback: false },
      redact: (text) => text,
    }) as unknown as { execute: (input: unknown, context: unknown) => Promise<{ ok: boolean }> }
    const context = {
      requestContext: {
        get: (key: string) =>
          key === 'run' ? { chatSessionId, sessionId: chatSessionId, turnId: 'bench' } : undefined,
      },
    }
    const input = { operation: 'browser_tabs', arguments: { action: 'list' } }
    const sides = {
      direct: () => direct.callTool({ name: 'browser_tabs', arguments: { action: 'list' } }),
      popagent: async () => {
        const out = await tool.execute(input, context)
        if (!out.ok) throw new Error(`the browser tool refused: ${JSON.stringify(out)}`)
      },
    }
    const { addedMs, directP50, popagentP50 } = await addedPerCall({
      rounds: options.rounds,
      calls: options.calls,
      // Warm-up: each side's first call starts its own Chromium.
      warmUpCalls: Math.max(3, options.calls / 5),
      sides,
    })
    return [
      {
        name: 'Browser tool call: added by popagent (p50)',
        goal: `≤ ${GOAL_MS} ms`,
        ratio: Number(addedMs.toFixed(2)),
        unit: 'ms',
        met: addedMs <= GOAL_MS,
        detail:
          `browser_tabs list on Playwright's MCP server over its Unix socket, ${options.calls} calls × ` +
          `${options.rounds} rounds: direct SDK p50 ${directP50.toFixed(2)} ms, through ` +
          `the browser tool ${popagentP50.toFixed(2)} ms (policy, schema, the session's ` +
          'call record in PostgreSQL, the per-session queue, bounds and strict parts)',
      },
    ]
  } finally {
    await direct.close().catch(() => {})
    await browser.close().catch(() => {})
    await mcp.dispose()
    await handle.close()
    await database.drop()
  }
}
