/**
 * The owner's MCP servers end to end (issue 40): defined through the API, given to an agent, and
 * called in real turns with the scripted gateway. One loopback HTTP server built with the SDK
 * (test/support/mcp-http-server.ts) serves the turn cases; a stdio server runs in the sandbox.
 */
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { dirname, join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { checkSandbox } from '../compute-host/workspaces/sandbox-check.ts'
import { createSession } from './support/api-fixtures.ts'
import { markRoles, offeredTools, postChat, roleOf, toolResultsOf } from './support/chat.ts'
import { startMcpHttpServer, type McpHttpTestServer } from './support/mcp-http-server.ts'
import type { RecordedRequest, Reply, ToolCallScript } from './support/scripted-gateway.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { errorJson, okJson, typedClient, type Client } from './support/typed-client.ts'
import { readUiStream } from './support/ui-stream.ts'

const sandbox = await checkSandbox()
const SUPERVISOR = 'orchistrator'
const repoRoot = dirname(import.meta.dirname)

describe("the owner's MCP servers in real turns", () => {
  let mcp: McpHttpTestServer
  let stack: TestStack
  let url: string
  let api: Client['api']

  before(async () => {
    mcp = await startMcpHttpServer()
    stack = await startTestStack({
      models: [{ id: 'remote/a' }],
      hostEnv: { POPAGENT_SECRET_KEY: randomBytes(32).toString('base64') },
    })
    url = await stack.listen()
    api = typedClient(stack.edge()).api
    await markRoles(stack, [SUPERVISOR])
  })
  after(async () => {
    await stack?.stop()
    await mcp?.stop()
  })

  /** A turn whose supervisor makes `calls` one after another, then answers. */
  async function turn(calls: ToolCallScript[]) {
    const sessionId = await createSession(stack.edge())
    const seen = stack.gateway.requests.length
    stack.gateway.respondWith((r): Reply | undefined => {
      if (roleOf(r) !== SUPERVISOR) return undefined
      const next = calls[toolResultsOf(r).length]
      return next ? { toolCalls: [next] } : { text: 'Done.' }
    })
    await readUiStream(await postChat(url, { sessionId, text: 'Use the tools.' }))
    const requests = stack.gateway.requests
      .slice(seen)
      .filter((r) => r.path === '/v1/chat/completions' && roleOf(r) === SUPERVISOR)
    const last: RecordedRequest = requests.at(-1)!
    return { offered: offeredTools(requests[0]!), results: toolResultsOf(last), sessionId }
  }
  const text = (message: { content?: unknown }) => JSON.stringify(message.content)

  test('the API checks definitions; credentials are vault secret ids, never values', async () => {
    const servers = api['mcp-servers']
    const refused = async (json: unknown, status: number, pattern: RegExp) => {
      const res = await servers.$post({ json: json as never })
      const body = await errorJson(res, status as never)
      assert.match(JSON.stringify(body), pattern)
    }
    const base = { id: 'x', transport: 'http', displayName: 'X' }
    await refused({ ...base, url: mcp.url }, 422, /loopback URL needs allowLoopback/)
    await refused({ ...base, url: 'http://example.com/mcp' }, 422, /only https/)
    await refused(
      { ...base, url: 'https://example.com/mcp', agentIds: ['nobody'] },
      422,
      /no agent nobody/,
    )
    await refused(
      {
        ...base,
        url: 'https://example.com/mcp',
        credentials: [{ header: 'Authorization', secretId: 'sec_nothing-here', scheme: 'bearer' }],
      },
      422,
      /no vault secret/,
    )
    const created = await okJson(
      await servers.$post({
        json: {
          id: 'tests',
          transport: 'http',
          displayName: 'Test tools',
          url: mcp.url,
          allowLoopback: true,
          agentIds: [SUPERVISOR],
        },
      }),
      201,
    )
    assert.equal(created.url, mcp.url)
    assert.deepEqual(created.agentIds, [SUPERVISOR])
    await errorJson(
      await servers.$post({
        json: { id: 'tests', transport: 'http', displayName: 'T', url: 'https://example.com/mcp' },
      }),
      409,
    )
    const listed = await okJson(await servers.$get(), 200)
    assert.deepEqual(
      listed.servers.map((s) => s.id),
      ['tests'],
    )
  })

  test('an MCP tool reaches the model with its schema; text, image and errors come back typed', async () => {
    const { offered, results } = await turn([
      { name: 'tests__echo', arguments: { text: 'hello from MCP' } },
      { name: 'tests__picture', arguments: {} },
      { name: 'tests__fails', arguments: {} },
      { name: 'tests__big', arguments: { bytes: 3 * 1024 * 1024 } },
    ])
    assert.ok(offered.includes('tests__echo'), `${offered}`)
    // AkurAI Build is not configured here: its roles are not offered for delegation.
    assert.ok(offered.includes('agent-researcher'), `${offered}`)
    assert.ok(!offered.some((t) => /^agent-(build-|community-steward)/.test(t)), `${offered}`)
    const request = stack.gateway.requests.find((r) => roleOf(r) === SUPERVISOR)!
    const echo = (request.body.tools as { function: { name: string; parameters: unknown } }[]).find(
      (t) => t.function.name === 'tests__echo',
    )!
    assert.match(JSON.stringify(echo.function.parameters), /"text"/)
    assert.match(text(results[0]!), /hello from MCP/)
    const picture = results[1]!.content as { type: string; image_url?: { url: string } }[]
    assert.ok(Array.isArray(picture), `the picture result is ${text(results[1]!).slice(0, 200)}`)
    assert.match(
      picture.find((p) => p.type === 'image_url')?.image_url?.url ?? '',
      /^data:image\/png;base64,iVBOR/,
    )
    assert.match(text(results[2]!), /failed \(tool-error\).*the widget is broken/)
    // Over the 2 MiB bound: a typed error, and none of the server's bytes.
    assert.match(text(results[3]!), /failed \(response-too-large\)/)
    assert.doesNotMatch(text(results[3]!), /xxxxxxxx/)

    const states = await okJson(await api['mcp-servers'].states.$get(), 200)
    const state = states.servers.find((s) => s.id === 'tests')!
    assert.equal(state.status, 'connected')
    assert.equal(state.toolCount, 8)
    // Health reports it too, from the host's memory.
    const health = await okJson(await api.health.$get(), 200)
    assert.equal(health.mcpServers?.find((s) => s.id === 'tests')?.status, 'connected')
  })

  test("MCP calls count against the run's tool-call budget like any tool", async () => {
    const runtime = api.settings['agent-runtime']
    const before = await okJson(await runtime.$get(), 200)
    await okJson(await runtime.$patch({ json: { budgetToolCalls: 2, loopRepeatLimit: 20 } }), 200)
    try {
      const calls = mcp.calls.length
      let n = 0
      const sessionId = await createSession(stack.edge())
      stack.gateway.respondWith((r): Reply | undefined =>
        roleOf(r) !== SUPERVISOR
          ? undefined
          : (r.body?.tools ?? []).length > 0
            ? { toolCalls: [{ name: 'tests__echo', arguments: { text: `call ${++n}` } }] }
            : { text: 'stopped by the budget' },
      )
      await readUiStream(await postChat(url, { sessionId, text: 'Echo forever.' }))
      assert.deepEqual(mcp.calls.slice(calls), ['echo', 'echo'])
    } finally {
      await okJson(
        await runtime.$patch({
          json: {
            budgetToolCalls: before.budgetToolCalls,
            loopRepeatLimit: before.loopRepeatLimit,
          },
        }),
        200,
      )
    }
  })

  test('a credential comes from the vault: sent as a bearer, never shown, rotated on the next run', async () => {
    const secret = await okJson(
      await api.secrets.$post({ json: { name: 'MCP_TOKEN', value: 'mcp-token-first-value' } }),
      201,
    )
    const created = await okJson(
      await api['mcp-servers'].$post({
        json: {
          id: 'authed',
          transport: 'http',
          displayName: 'With a token',
          url: mcp.url,
          allowLoopback: true,
          credentials: [{ header: 'Authorization', secretId: secret.id, scheme: 'bearer' }],
          agentIds: [SUPERVISOR],
        },
      }),
      201,
    )
    assert.doesNotMatch(JSON.stringify(created), /mcp-token-first-value/)
    const bearers = () => new Set(mcp.headers.map((h) => h.authorization).filter(Boolean))
    await turn([{ name: 'authed__echo', arguments: { text: 'with a token' } }])
    assert.ok(bearers().has('Bearer mcp-token-first-value'), `${[...bearers()]}`)
    await okJson(
      await api.secrets[':id'].rotate.$post({
        param: { id: secret.id },
        json: { value: 'mcp-token-second-value' },
      }),
      200,
    )
    await turn([{ name: 'authed__echo', arguments: { text: 'rotated' } }])
    assert.ok(bearers().has('Bearer mcp-token-second-value'), `${[...bearers()]}`)
    await okJson(await api['mcp-servers'][':id'].$delete({ param: { id: 'authed' } }), 200)
  })

  test('an agent the owner did not give the server does not get its tools; disabling removes them', async () => {
    await okJson(
      await api['mcp-servers'][':id'].$patch({ param: { id: 'tests' }, json: { enabled: false } }),
      200,
    )
    const { offered } = await turn([])
    assert.ok(!offered.some((t) => t.startsWith('tests__')), `${offered}`)
    const states = await okJson(await api['mcp-servers'].states.$get(), 200)
    assert.equal(states.servers.find((s) => s.id === 'tests')!.status, 'disabled')
    await okJson(
      await api['mcp-servers'][':id'].$patch({ param: { id: 'tests' }, json: { enabled: true } }),
      200,
    )
  })

  test("the owner chooses some of a server's tools per agent: the others are not offered, and the editor says why", async () => {
    const agentTools = async (id: string) =>
      okJson(await api.agents[':id']['mcp-tools'].$get({ param: { id } }), 200)
    const tests = (list: Awaited<ReturnType<typeof agentTools>>) =>
      list.servers.find((s) => s.id === 'tests')!
    const all = tests(await agentTools(SUPERVISOR))
    assert.equal(all.given, true)
    assert.equal(all.chosen, null)
    assert.equal(all.reason, null)
    const echo = all.tools.find((t) => t.name === 'echo')!
    assert.deepEqual(
      { toolName: echo.toolName, chosen: echo.chosen, available: echo.available },
      { toolName: 'tests__echo', chosen: true, available: true },
    )
    assert.ok(
      all.tools.every((t) => t.available),
      JSON.stringify(all.tools),
    )
    // An agent the server is not given: every tool listed, none available, the reason given.
    const other = tests(await agentTools('reviewer'))
    assert.equal(other.given, false)
    assert.ok(other.tools.length > 0)
    assert.ok(other.tools.every((t) => !t.available && /not given the server/.test(t.reason!)))
    await errorJson(await api.agents[':id']['mcp-tools'].$get({ param: { id: 'nobody' } }), 404)

    const servers = api['mcp-servers'][':id']
    const choose = (agentTools: Record<string, string[]>) =>
      servers.$patch({ param: { id: 'tests' }, json: { agentTools } })
    const refused = await errorJson(await choose({ reviewer: ['echo'] }), 422)
    assert.match(JSON.stringify(refused), /not given this server/)
    const saved = await okJson(await choose({ [SUPERVISOR]: ['echo', 'fails'] }), 200)
    assert.deepEqual(saved.agentTools, { [SUPERVISOR]: ['echo', 'fails'] })

    const { offered } = await turn([{ name: 'tests__echo', arguments: { text: 'chosen' } }])
    assert.ok(offered.includes('tests__echo'), `${offered}`)
    assert.ok(offered.includes('tests__fails'), `${offered}`)
    assert.ok(!offered.includes('tests__picture'), `${offered}`)
    const some = tests(await agentTools(SUPERVISOR))
    assert.deepEqual(some.chosen, ['echo', 'fails'])
    const picture = some.tools.find((t) => t.name === 'picture')!
    assert.deepEqual(
      { chosen: picture.chosen, available: picture.available, reason: picture.reason },
      { chosen: false, available: false, reason: 'not chosen for this agent' },
    )

    // Taking the agent off the server drops its choice; a disabled server says so.
    const off = await okJson(
      await servers.$patch({ param: { id: 'tests' }, json: { agentIds: [] } }),
      200,
    )
    assert.deepEqual(off.agentTools, {})
    await okJson(
      await servers.$patch({
        param: { id: 'tests' },
        json: { agentIds: [SUPERVISOR], enabled: false },
      }),
      200,
    )
    const disabled = tests(await agentTools(SUPERVISOR))
    assert.equal(disabled.reason, 'the server is disabled')
    assert.deepEqual(disabled.tools, [])
    await okJson(await servers.$patch({ param: { id: 'tests' }, json: { enabled: true } }), 200)
    const back = await turn([])
    assert.ok(back.offered.includes('tests__picture'), `${back.offered}`)
  })

  test(
    'a PreToolUse hook denies an MCP call like any other',
    { skip: !sandbox.available && sandbox.reason },
    async () => {
      const hook = await okJson(
        await api.hooks.$post({
          json: {
            name: 'no echo',
            event: 'PreToolUse',
            kind: 'command',
            matcher: 'tests__echo',
            command: [
              'sh',
              '-c',
              `cat >/dev/null; printf '%s' '{"decision":"deny","reason":"echo is off today"}'`,
            ],
          },
        }),
        201,
      )
      try {
        const calls = mcp.calls.length
        const { results } = await turn([{ name: 'tests__echo', arguments: { text: 'blocked?' } }])
        assert.match(text(results[0]!), /echo is off today/)
        assert.equal(mcp.calls.length, calls, 'the denied call reached the server')
      } finally {
        await okJson(await api.hooks[':id'].$delete({ param: { id: hook.id } }), 200)
      }
    },
  )

  test(
    'a stdio server runs in the sandbox without network unless its owner allows it',
    { skip: !sandbox.available && sandbox.reason },
    async () => {
      const node = process.execPath
      await okJson(
        await api['mcp-servers'].$post({
          json: {
            id: 'boxed',
            transport: 'stdio',
            displayName: 'Sandboxed',
            argv: [node, join(repoRoot, 'test', 'support', 'mcp-stdio-server.ts')],
            readOnlyPaths: [dirname(node), repoRoot],
            agentIds: [SUPERVISOR],
          },
        }),
        201,
      )
      const reach = { name: 'boxed__reach', arguments: { url: mcp.url } }
      const closed = await turn([reach])
      assert.match(text(closed.results[0]!), /unreachable/)
      await okJson(
        await api['mcp-servers'][':id'].$patch({
          param: { id: 'boxed' },
          json: { allowNetwork: true },
        }),
        200,
      )
      const open = await turn([reach])
      // The host's loopback is not the sandbox's even with the network shared? It is: --share-net
      // keeps the host's namespace, so the server answers (405/400 for a bare GET is an answer).
      assert.match(text(open.results[0]!), /reached: HTTP/)
      await okJson(await api['mcp-servers'][':id'].$delete({ param: { id: 'boxed' } }), 200)
    },
  )

  test(
    "a stdio server's variable takes a vault secret: the server gets it, the API never shows it",
    { skip: !sandbox.available && sandbox.reason },
    async () => {
      const value = `stdio-secret-${randomBytes(12).toString('hex')}`
      const secret = await okJson(
        await api.secrets.$post({ json: { name: 'STDIO_SERVICE_TOKEN', value } }),
        201,
      )
      const node = process.execPath
      const definition = {
        id: 'envd',
        transport: 'stdio' as const,
        displayName: 'With a secret variable',
        argv: [node, join(repoRoot, 'test', 'support', 'mcp-stdio-server.ts')],
        readOnlyPaths: [dirname(node), repoRoot],
        agentIds: [SUPERVISOR],
      }
      // Names that change how a loader, shell or runtime starts never take a vault value.
      for (const name of ['LD_PRELOAD', 'NODE_OPTIONS', 'BASH_ENV', 'PATH', 'GLIBC_TUNABLES']) {
        const res = await api['mcp-servers'].$post({
          json: { ...definition, secretEnv: [{ name, secretId: secret.id }] },
        })
        assert.equal(res.status, 400, name)
      }
      await errorJson(
        await api['mcp-servers'].$post({
          json: {
            ...definition,
            env: { SERVICE_TOKEN: 'plain' },
            secretEnv: [{ name: 'SERVICE_TOKEN', secretId: secret.id }],
          },
        }),
        422,
      )
      const created = await okJson(
        await api['mcp-servers'].$post({
          json: { ...definition, secretEnv: [{ name: 'SERVICE_TOKEN', secretId: secret.id }] },
        }),
        201,
      )
      assert.deepEqual(created.secretEnv, [{ name: 'SERVICE_TOKEN', secretId: secret.id }])
      const { results } = await turn([
        { name: 'envd__env-hash', arguments: { name: 'SERVICE_TOKEN' } },
      ])
      const sha = createHash('sha256').update(value).digest('hex')
      assert.match(text(results[0]!), new RegExp(`sha256:${sha}`))
      const shown = [
        created,
        await okJson(await api['mcp-servers'].$get(), 200),
        await okJson(await api['mcp-servers'][':id'].$get({ param: { id: 'envd' } }), 200),
        await okJson(await api.agents[':id']['mcp-tools'].$get({ param: { id: SUPERVISOR } }), 200),
      ]
      for (const body of shown) assert.doesNotMatch(JSON.stringify(body), new RegExp(value))
      await okJson(await api['mcp-servers'][':id'].$delete({ param: { id: 'envd' } }), 200)
    },
  )
})
