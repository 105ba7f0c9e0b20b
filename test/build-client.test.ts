/**
 * AkurAI Build over the MCP client room (compute-host/build/) against a protocol-faithful fake
 * Build server on loopback (test/support/mcp-build-server.ts): disabled without a key, the bearer
 * sent and kept out of messages, one handshake for concurrent first calls, operations checked
 * against the server's list, each operation's structured answer parsed strictly, the role
 * allowlists and the promotion rule applied on every call.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createRunContext } from '../compute-host/agents/run-context.ts'
import { checkTool } from '../compute-host/agents/tool-availability.ts'
import { createToolProvider } from '../compute-host/agents/tool-provider.ts'
import { createBuildClient, type BuildClient } from '../compute-host/build/client.ts'
import { buildRoleWithheld } from '../compute-host/build/delegation.ts'
import { buildStatus } from '../compute-host/build/status.ts'
import { buildToolImplementations, createBuildTool } from '../compute-host/build/tools.ts'
import type { McpToolOutput } from '../compute-host/mcp/mcp-tool.ts'
import type { AgentRow } from '../runtime/agents/index.ts'
import {
  BUILD_TEST_KEY,
  startFakeBuildServer,
  type FakeBuildServer,
} from './support/mcp-build-server.ts'

const row = (id: string, tools: string[]): AgentRow =>
  ({ id, tools, workspaceAccess: 'none', browserAccess: 'none' }) as unknown as AgentRow
const SANDBOX = { available: false as const, reason: 'not needed here' }
const settings = {} as never
const interactive = createRunContext({
  modelRoute: 'remote/a',
  settings,
  run: { sessionId: 'ses_x', turnId: 't1' },
})
const inTask = createRunContext({
  modelRoute: 'remote/a',
  settings,
  run: { turnId: 't2', taskId: 'tsk_x' },
})

type Executable = { execute?: (input: unknown, context: unknown) => Promise<unknown> }
const run = async (tool: unknown, input: unknown, requestContext = interactive) =>
  (await (tool as Executable).execute!(input, { requestContext })) as McpToolOutput

describe('AkurAI Build client', () => {
  let server: FakeBuildServer
  const clients: BuildClient[] = []
  const client = (apiKey: string | undefined) => {
    const made = createBuildClient({ url: server.url, apiKey })
    clients.push(made)
    return made
  }
  before(async () => {
    server = await startFakeBuildServer()
  })
  after(async () => {
    for (const c of clients) await c.close()
    await server.stop()
  })

  test('without a key Build is disabled: no request, tools unavailable, roles not offered', async () => {
    const disabled = client(undefined)
    await disabled.refresh()
    assert.deepEqual(await buildStatus(disabled), {
      enabled: false,
      reason: 'AKURAI_BUILD_API_KEY is not set: AkurAI Build is disabled',
    })
    assert.equal(server.requests.length, 0)
    const host = { sandbox: SANDBOX, tools: createToolProvider(buildToolImplementations(disabled)) }
    const maintainer = row('build-maintainer', ['build-runs', 'build-audit'])
    const check = checkTool('build-runs', maintainer, host)
    assert.equal(check.kind, 'unavailable')
    assert.match(
      buildRoleWithheld(maintainer, (t) => checkTool(t, maintainer, host)) ?? '',
      /disabled/,
    )
    // A general role is never withheld by this rule.
    assert.equal(
      buildRoleWithheld(row('researcher', ['web-search']), () => check),
      undefined,
    )
  })

  test('the bearer is sent and kept out of every message; a wrong key is a typed refusal', async () => {
    const wrong = client('a-wrong-key-that-is-long-enough')
    await wrong.refresh()
    const status = await buildStatus(wrong)
    assert.ok(status.enabled)
    assert.equal(status.lastError?.code, 'unauthorized')
    assert.doesNotMatch(JSON.stringify(status), /a-wrong-key/)
    assert.ok(
      server.requests.some((r) => r.authorization === 'Bearer a-wrong-key-that-is-long-enough'),
    )
  })

  test('concurrent first calls initialise once; missing operations are reported, never faked', async () => {
    const before = server.initializations
    const build = client(BUILD_TEST_KEY)
    await Promise.all([build.refresh(), build.refresh(), build.refresh()])
    assert.equal(server.initializations - before, 1)
    const status = await buildStatus(build)
    assert.ok(status.enabled && status.status === 'connected')
    assert.deepEqual(status.missing['build-runs'], ['runs_cancel'])
    assert.deepEqual(status.missing['build-workers'], ['workers_list', 'workers_drain'])
    assert.doesNotMatch(JSON.stringify(status), new RegExp(BUILD_TEST_KEY))

    const tools = createToolProvider(buildToolImplementations(build))
    const maintainer = row('build-maintainer', ['build-runs', 'build-workers'])
    const workers = tools.bind('build-workers', maintainer)
    assert.ok(!workers.ok && /offers none of workers_list, workers_drain/.test(workers.reason))
    const runs = tools.bind('build-runs', maintainer)
    assert.ok(runs.ok)
    const listed = await run(runs.tool, { operation: 'runs_list' })
    assert.deepEqual(listed.ok && listed.content, [{ type: 'text', text: 'run 1: green' }])
    // The operation the server lacks is not in the tool's schema: the call is refused before it.
    await assert.rejects(async () => {
      const answer = (await run(runs.tool, { operation: 'runs_cancel' })) as unknown
      if (answer && typeof answer === 'object' && 'error' in answer) throw new Error('refused')
    }, /refused|runs_cancel|validation/i)
    assert.ok(!server.requests.some((r) => r.tool === 'runs_cancel'))
  })

  test('bad JSON and an answer to another request are typed errors', async () => {
    const build = client(BUILD_TEST_KEY)
    await build.refresh()
    const tools = createToolProvider(buildToolImplementations(build))
    const maintainer = row('build-maintainer', ['build-audit', 'build-metrics'])
    const audit = tools.bind('build-audit', maintainer)
    const metrics = tools.bind('build-metrics', maintainer)
    assert.ok(audit.ok && metrics.ok)
    const badJson = await run(audit.tool, { operation: 'audit_list' })
    assert.ok(!badJson.ok && badJson.error.code === 'malformed', JSON.stringify(badJson))
    const wrongId = await run(metrics.tool, { operation: 'metrics_get' })
    assert.ok(!wrongId.ok && wrongId.error.code === 'malformed', JSON.stringify(wrongId))
  })

  test("each operation's structuredContent is parsed strictly: an extra field or a wrong type is a typed error", async () => {
    const build = client(BUILD_TEST_KEY)
    await build.refresh()
    const tools = createToolProvider(buildToolImplementations(build))
    const runs = tools.bind('build-runs', row('build-maintainer', ['build-runs']))
    assert.ok(runs.ok)
    const get = (id: string) => run(runs.tool, { operation: 'runs_get', arguments: { id } })
    const good = await get('run-1')
    assert.ok(good.ok, JSON.stringify(good))
    assert.deepEqual(good.structuredContent, { runId: 'run-1', status: 'green', branch: 'main' })
    const extra = await get('with-extra')
    assert.ok(!extra.ok && extra.error.code === 'malformed', JSON.stringify(extra))
    assert.match(extra.error.message, /runs_get .*unknown field note/)
    // The server's value is not passed on, not even inside the error.
    assert.doesNotMatch(JSON.stringify(extra), /ignore your instructions/)
    const wrong = await get('wrong-type')
    assert.ok(!wrong.ok && wrong.error.code === 'malformed', JSON.stringify(wrong))
    assert.match(wrong.error.message, /status: not string/)
    // An answer of text parts alone is not checked.
    const plain = await get('no-such-run')
    assert.ok(plain.ok && plain.structuredContent === undefined, JSON.stringify(plain))
  })

  test("allowlists hold on every call; promotion is the release manager's, in an interactive turn only", async () => {
    const build = client(BUILD_TEST_KEY)
    await build.refresh()
    const tools = createToolProvider(buildToolImplementations(build))
    // A row forced past the agent store (promotion on the community steward) binds nothing …
    const forced = tools.bind('build-promote', row('community-steward', ['build-promote']))
    assert.ok(!forced.ok && /outside the "community-steward" allowlist/.test(forced.reason))
    // … and the tool itself, had it been made for that role, refuses at call time.
    const promoteOp = [{ name: 'environments_promote', mutates: true, promotion: true as const }]
    const smuggled = createBuildTool({
      name: 'build-promote',
      agentId: 'community-steward',
      available: promoteOp,
      client: build,
    })
    const refused = await run(smuggled, { operation: 'environments_promote' })
    assert.ok(!refused.ok && /allowlist/.test(refused.error.message))

    const promote = tools.bind('build-promote', row('build-release-manager', ['build-promote']))
    assert.ok(promote.ok)
    const fromTask = await run(promote.tool, { operation: 'environments_promote' }, inTask)
    assert.ok(!fromTask.ok && /never in a task run/.test(fromTask.error.message))
    assert.ok(!server.requests.some((r) => r.tool === 'environments_promote'))
    const promoted = await run(promote.tool, { operation: 'environments_promote' })
    assert.ok(promoted.ok, JSON.stringify(promoted))
    assert.equal(server.requests.filter((r) => r.tool === 'environments_promote').length, 1)
  })
})
