/**
 * The MCP client room (compute-host/mcp/) against real MCP servers built with the SDK: one over
 * Streamable HTTP on loopback (and once over a Unix socket), one over stdio.
 */
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { McpConnection, type McpConnectionOptions } from '../compute-host/mcp/connection.ts'
import { McpClientError, type McpErrorCode } from '../compute-host/mcp/errors.ts'
import { guardedFetch } from '../compute-host/mcp/guarded-fetch.ts'
import { unixSocketFetch } from '../compute-host/mcp/node-http-fetch.ts'
import { startMcpHttpServer, type McpHttpTestServer } from './support/mcp-http-server.ts'
import { RED_DOT_PNG } from './support/mcp-test-tools.ts'
import { until, waitFor } from './support/until.ts'

const FAST_RECONNECT = { reconnect: { baseMs: 10, maxMs: 50 } }

async function rejectsWith(promise: Promise<unknown>, code: McpErrorCode): Promise<McpClientError> {
  try {
    await promise
  } catch (error) {
    assert.ok(error instanceof McpClientError, `expected McpClientError, got ${String(error)}`)
    assert.equal(error.code, code, error.message)
    return error
  }
  assert.fail(`expected a ${code} error, the call succeeded`)
}

describe('MCP client over Streamable HTTP', () => {
  let server: McpHttpTestServer
  const open: McpConnection[] = []
  const connect = (options: Partial<McpConnectionOptions> = {}) => {
    const connection = new McpConnection({
      name: 'test-http',
      endpoint: { transport: 'http', url: server.url },
      ...options,
      limits: { ...FAST_RECONNECT, ...options.limits },
    })
    open.push(connection)
    return connection
  }
  before(async () => {
    server = await startMcpHttpServer()
  })
  after(async () => {
    for (const connection of open) await connection.close()
    await server.stop()
  })

  test('lists the tools, calls one, keeps images and resources, and reports its state', async () => {
    const connection = connect({
      endpoint: { transport: 'http', url: server.url, headers: { authorization: 'Bearer t0ken' } },
    })
    assert.equal(connection.state().status, 'idle')
    const tools = await connection.listTools()
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      'big',
      'echo',
      'fails',
      'mislabelled-image',
      'notes',
      'picture',
      'reach',
      'slow',
    ])
    const echo = tools.find((t) => t.name === 'echo')!
    assert.equal(echo.inputSchema.type, 'object')
    assert.deepEqual(Object.keys(echo.inputSchema.properties as object), ['text'])

    assert.deepEqual(await connection.callTool('echo', { text: 'hi' }), {
      content: [{ type: 'text', text: 'hi' }],
    })
    assert.deepEqual((await connection.callTool('picture', {})).content, [
      { type: 'image', data: RED_DOT_PNG, mimeType: 'image/png' },
      { type: 'text', text: 'a red dot' },
    ])
    assert.deepEqual((await connection.callTool('notes', {})).content, [
      { type: 'resource', uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'the notes' },
    ])
    assert.ok(server.headers.some((h) => h.authorization === 'Bearer t0ken'))
    const state = connection.state()
    assert.equal(state.status, 'connected')
    assert.equal(state.toolCount, 8)
    assert.equal(state.serverInfo?.name, 'popagent-test-http')
  })

  test('concurrent first calls share one handshake', async () => {
    const before = server.initializations
    const connection = connect()
    await Promise.all([
      connection.listTools(),
      connection.listTools(),
      connection.callTool('echo', { text: 'a' }),
    ])
    assert.equal(server.initializations - before, 1)
  })

  test('bad results are typed errors, never text: oversized, malformed, isError, too large to send', async () => {
    const connection = connect({ limits: { maxResponseBytes: 64 * 1024, maxRequestBytes: 4096 } })
    const big = await rejectsWith(
      connection.callTool('big', { bytes: 100_000 }),
      'response-too-large',
    )
    assert.doesNotMatch(big.message, /xxxx/)
    await rejectsWith(connection.callTool('mislabelled-image', {}), 'malformed')
    const failed = await rejectsWith(connection.callTool('fails', {}), 'tool-error')
    assert.match(failed.message, /the widget is broken/)
    await rejectsWith(connection.callTool('echo', { text: 'y'.repeat(5000) }), 'request-too-large')
    // The SDK's server answers an unknown tool with isError, not a JSON-RPC error.
    await rejectsWith(connection.callTool('no-such-tool', {}), 'tool-error')
    // The connection is still good after each of them.
    assert.deepEqual((await connection.callTool('echo', { text: 'still here' })).content, [
      { type: 'text', text: 'still here' },
    ])
    assert.equal(connection.state().lastError?.code, 'malformed')
  })

  test('stopping the run aborts the call and the server sees the cancellation; so does a timeout', async () => {
    const connection = connect()
    await connection.listTools()
    const run = new AbortController()
    const started = server.started('slow')
    const call = connection.callTool('slow', {}, { signal: run.signal })
    await started
    run.abort()
    await rejectsWith(call, 'aborted')
    await until(() => server.aborted.length === 1, 5_000, 'the server to see the abort')

    const timedOut = server.started('slow')
    const late = connection.callTool('slow', {}, { timeoutMs: 200 })
    await timedOut
    await rejectsWith(late, 'timeout')
    await until(() => server.aborted.length === 2, 5_000, 'the server to see the timeout')
  })

  test('re-reads the tool list when the server says it changed', async () => {
    let changed: readonly string[] | undefined
    const connection = connect({ onToolsChanged: (tools) => (changed = tools.map((t) => t.name)) })
    assert.equal((await connection.listTools()).length, 8)
    server.addTool('added-later')
    // The notification travels on the server's standalone stream, which the client opens just
    // after the handshake; it is repeated until it lands.
    await waitFor(
      () => {
        if (changed === undefined) server.notifyToolsChanged()
        return changed
      },
      5_000,
      'the list_changed re-read',
    )
    assert.ok(changed!.includes('added-later'))
    assert.equal(connection.state().toolCount, 9)
    assert.ok((await connection.listTools()).some((t) => t.name === 'added-later'))
  })

  test('a server killed mid-call gives a clear error; after a restart the next call reconnects', async () => {
    // Through the SSRF guard's fetch, as an owner's server is called (loopback allowed here).
    const connection = connect({
      endpoint: {
        transport: 'http',
        url: server.url,
        fetch: guardedFetch({ allowLoopback: true }),
      },
    })
    await connection.listTools()
    const started = server.started('slow')
    const call = connection.callTool('slow', {}, { timeoutMs: 30_000 })
    await started
    const t0 = Date.now()
    await server.stop()
    await rejectsWith(call, 'connection-lost')
    assert.ok(Date.now() - t0 < 5_000, 'the cut is found at once, not at the timeout')

    // Down: the call fails typed, the state says so.
    const down = await connection.callTool('echo', { text: 'x' }).catch((e: unknown) => e)
    assert.ok(
      down instanceof McpClientError && ['connection-lost', 'unavailable'].includes(down.code),
    )
    assert.equal(connection.state().status, 'failed')

    await server.restart()
    await waitFor(
      () =>
        connection.callTool('echo', { text: 'back' }).then(
          (r) => r,
          // While it comes back a call may still find it away (refused, or a stale pooled socket).
          (e: unknown) =>
            e instanceof McpClientError && ['unavailable', 'connection-lost'].includes(e.code)
              ? undefined
              : Promise.reject(e),
        ),
      5_000,
      'the reconnect',
    )
    assert.equal(connection.state().status, 'connected')

    // Restarted with no call in between: the old session is unknown (404), replaced once.
    await server.stop()
    await server.restart()
    assert.deepEqual((await connection.callTool('echo', { text: 'again' })).content, [
      { type: 'text', text: 'again' },
    ])
  })
})

describe('MCP client over a Unix socket', () => {
  let directory: string
  let server: McpHttpTestServer
  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'mcp-socket-'))
    server = await startMcpHttpServer({ socketPath: join(directory, 'mcp.sock') })
  })
  after(async () => {
    await server.stop()
    await rm(directory, { recursive: true, force: true })
  })

  test('speaks Streamable HTTP through the socket, streams included', async () => {
    const connection = new McpConnection({
      name: 'socket',
      endpoint: {
        transport: 'http',
        url: server.url,
        fetch: unixSocketFetch(join(directory, 'mcp.sock')),
      },
    })
    try {
      assert.equal((await connection.listTools()).length, 8)
      assert.deepEqual((await connection.callTool('picture', {})).content[0], {
        type: 'image',
        data: RED_DOT_PNG,
        mimeType: 'image/png',
      })
    } finally {
      await connection.close()
    }
  })
})

describe('MCP client over stdio', () => {
  const node = process.execPath
  const script = join(import.meta.dirname, 'support', 'mcp-stdio-server.ts')
  const open: McpConnection[] = []
  const connect = (options: Partial<McpConnectionOptions> = {}) => {
    const connection = new McpConnection({
      name: 'test-stdio',
      endpoint: { transport: 'stdio', argv: [node, script] },
      ...options,
      limits: { ...FAST_RECONNECT, ...options.limits },
    })
    open.push(connection)
    return connection
  }
  after(async () => {
    for (const connection of open) await connection.close()
  })

  test('lists, calls, keeps the image, and stops a slow call the server sees stopped', async () => {
    const connection = connect()
    // The test tools and the stdio server's own `env-hash`.
    assert.equal((await connection.listTools()).length, 9)
    assert.deepEqual((await connection.callTool('picture', {})).content[0], {
      type: 'image',
      data: RED_DOT_PNG,
      mimeType: 'image/png',
    })
    const run = new AbortController()
    const call = connection.callTool('slow', {}, { signal: run.signal })
    await until(() => connection.state().stderrTail.includes('started slow'), 5_000, 'the start')
    run.abort()
    await rejectsWith(call, 'aborted')
    await until(() => connection.state().stderrTail.includes('aborted slow'), 5_000, 'the abort')
  })

  test('an oversized line is a typed error, and the next call starts the server again', async () => {
    const connection = connect({ limits: { maxResponseBytes: 64 * 1024 } })
    await rejectsWith(connection.callTool('big', { bytes: 100_000 }), 'response-too-large')
    assert.equal(connection.state().lastError?.code, 'response-too-large')
    assert.deepEqual((await connection.callTool('echo', { text: 'fresh' })).content, [
      { type: 'text', text: 'fresh' },
    ])
  })

  test('a program that cannot start is unavailable, and reconnects back off', async () => {
    const connection = connect({
      endpoint: { transport: 'stdio', argv: ['/nonexistent/mcp-server'] },
      limits: { reconnect: { baseMs: 60_000, maxMs: 60_000 } },
    })
    await rejectsWith(connection.listTools(), 'unavailable')
    const second = await rejectsWith(connection.listTools(), 'unavailable')
    assert.ok(second.retryAt && second.retryAt.getTime() > Date.now())
    const state = connection.state()
    assert.equal(state.status, 'failed')
    assert.equal(state.failures, 1)
    assert.ok(state.retryAt)
  })
})
