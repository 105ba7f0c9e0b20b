import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { RequestContext } from '@mastra/core/request-context'
import { createRunContext } from '../compute-host/agents/run-context.ts'
import * as Settings from '../runtime/settings/index.ts'
import { agentSkills } from '../db/schema/index.ts'
import { eq } from '../db/drizzle-orm.ts'
import { json } from './support/app.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient } from './support/typed-client.ts'

describe('agent factory', () => {
  let stack: TestStack
  before(
    async () =>
      (stack = await startTestStack({
        models: [{ id: 'remote/big' }, { id: 'cx/gpt-5.3-codex-spark' }, { id: 'titan/local' }],
        hostEnv: { POPAGENT_LOCAL_MODEL_CONCURRENCY: '2', POPAGENT_LOCAL_MODEL_PREFIXES: 'titan/' },
      })),
  )
  after(() => stack.stop())

  // Mastra's inspection methods (listSkills, listTools, getInstructions) are typed for an untyped
  // context; the run context is a RequestContext all the same.
  const context = async (modelRoute: string): Promise<RequestContext> =>
    createRunContext({
      modelRoute,
      settings: await Settings.agentRuntime.get(stack.host.resources.databases.application.db),
    }) as unknown as RequestContext
  const modelIdOf = async (agent: any, requestContext: any) =>
    ((await agent.getModel({ requestContext })) as { modelId: string }).modelId

  test('builds the supervisor with only delegation-eligible specialists, who cannot delegate', async () => {
    const { supervisor, specialists } = await stack.host.resources.agents.build()
    const requestContext = await context('remote/big')
    assert.equal(supervisor.id, 'orchistrator')
    assert.equal(supervisor.name, 'Orchestrator')
    const delegates = Object.keys(await supervisor.listAgents({ requestContext })).sort()
    // AkurAI Build is not configured on this host: its three roles are not offered.
    assert.deepEqual(delegates, ['implementer', 'reviewer', 'researcher'].sort())
    for (const specialist of Object.values(specialists)) {
      assert.deepEqual(Object.keys(await specialist.listAgents({ requestContext })), [])
    }
  })

  test('specialists resolve the request route unless their row overrides it', async () => {
    const { supervisor, specialists } = await stack.host.resources.agents.build()
    const requestContext = await context('remote/big')
    assert.equal(await modelIdOf(supervisor, requestContext), 'remote/big')
    assert.equal(await modelIdOf(specialists.implementer, requestContext), 'remote/big')
    assert.equal(await modelIdOf(specialists.researcher, requestContext), 'cx/gpt-5.3-codex-spark')
  })

  test('a run without a model route is refused rather than sent to a default', async () => {
    const { specialists } = await stack.host.resources.agents.build()
    await assert.rejects(
      async () => modelIdOf(specialists.implementer, new RequestContext()),
      /no model route/,
    )
  })

  test('an API edit changes what the next run is built with', async () => {
    const edge = stack.edge()
    const requestContext = await context('remote/big')
    const previous = await stack.host.resources.agents.build()
    const skillsBefore = await previous.specialists.implementer!.listSkills({ requestContext })
    assert.equal(skillsBefore.length, 2)

    const instructions = 'Implement with the smallest change that passes the tests. (edited)'
    const patched = await edge.request(
      '/api/agents/implementer',
      json(
        { instructions, modelOverride: 'cx/gpt-5.3-codex-spark', tools: ['workspace-read'] },
        { method: 'PATCH' },
      ),
    )
    assert.equal(patched.status, 200, await patched.clone().text())
    const { api } = typedClient(edge)
    const implementerParam = { id: 'implementer' }
    const { skills } = await okJson(
      await api.agents[':id'].skills.$get({ param: implementerParam }),
    )
    const disabled = await api.agents[':id'].skills[':skillId'].$patch({
      param: { ...implementerParam, skillId: skills[0]!.id },
      json: { enabled: false },
    })
    assert.equal(disabled.status, 200)

    const next = await stack.host.resources.agents.build()
    const implementer = next.specialists.implementer!
    // The edited text, then the note on what this run (built without a repository) cannot offer.
    assert.equal(
      await implementer.getInstructions({ requestContext }),
      `${instructions}\n\nTools you hold but cannot use in this run (say so if the task needs them):\n` +
        '- workspace-read: this run has no repository directory to work in',
    )
    assert.equal(await modelIdOf(implementer, requestContext), 'cx/gpt-5.3-codex-spark')
    const skillNames = (await implementer.listSkills({ requestContext })).map((s) => s.name)
    assert.deepEqual(skillNames, [skills[1]?.name])
    // The run that was already built keeps what it started with.
    const earlier = previous.specialists.implementer!
    assert.notEqual(await earlier.getInstructions({ requestContext }), instructions)
  })

  test('a stored skill Mastra refuses is left out of the run, not the whole build', async () => {
    const db = stack.host.resources.databases.application.db
    const id = 'skill_refused_by_mastra'
    // Written past the API (as a row saved before it checked UTF-16 length would be).
    await db.insert(agentSkills).values({
      id,
      agentId: 'implementer',
      name: 'too-long-description',
      description: '😀'.repeat(1024),
      instructions: 'i',
      references: {},
      enabled: true,
      evolutionManaged: false,
    })
    try {
      const { specialists } = await stack.host.resources.agents.build()
      const requestContext = await context('remote/big')
      const names = (await specialists.implementer!.listSkills({ requestContext })).map(
        (s) => s.name,
      )
      assert.ok(!names.includes('too-long-description'), names.join(', '))
      assert.ok(names.length > 0, 'the agent keeps its other skills')
    } finally {
      await db.delete(agentSkills).where(eq(agentSkills.id, id))
    }
  })

  test('tool names this host has no implementation for are reported, not faked', async () => {
    const { unavailableTools, specialists } = await stack.host.resources.agents.build()
    const requestContext = await context('remote/big')
    const tools = await specialists.reviewer!.listTools({ requestContext })
    // web-search, repo-brief, docs-search and the memory tools are installed; the browser is
    // switched off by default; workspace tools need a repository, which this build was not given.
    assert.deepEqual(Object.keys(tools).sort(), [
      'docs-search',
      'memory-search',
      'repo-brief',
      'retain-fact',
      'web-search',
    ])
    const reason = (tool: string) =>
      unavailableTools.find((u) => u.agentId === 'reviewer' && u.tool === tool)?.reason ?? ''
    assert.match(reason('browser'), /switched off in the settings/)
    assert.match(reason('workspace-read'), /no repository directory/)
  })

  test("the editor's tool list is the host's answer, and a run drops exactly what it says", async () => {
    const api = typedClient(stack.edge()).api
    const statusesOf = async (id: string) =>
      (await okJson(await api.agents[':id'].tools.$get({ param: { id } }))).tools
    const reviewer = await statusesOf('reviewer')
    const reviewerRow = await okJson(await api.agents[':id'].$get({ param: { id: 'reviewer' } }))
    assert.deepEqual(
      reviewer.map((s) => s.tool),
      reviewerRow.tools,
    )
    const status = (list: typeof reviewer, tool: string) => list.find((s) => s.tool === tool)
    assert.deepEqual(status(reviewer, 'web-search'), {
      tool: 'web-search',
      available: true,
      needsRepository: false,
    })
    assert.deepEqual(status(reviewer, 'workspace-read'), {
      tool: 'workspace-read',
      available: true,
      needsRepository: true,
    })
    const browser = status(reviewer, 'browser')
    assert.ok(browser && !browser.available && /switched off in the settings/.test(browser.reason))

    // The shell follows this host's sandbox self-test, reason and all.
    const maintainer = await statusesOf('build-maintainer')
    const shell = status(maintainer, 'shell')!
    const sandbox = stack.host.resources.sandbox
    assert.equal(shell.available, sandbox.available)
    if (!sandbox.available) assert.equal(!shell.available && shell.reason, sandbox.reason)

    // A run with a Git repository goes without exactly the tools reported unavailable.
    const repository = await mkdtemp(join(tmpdir(), 'popagent-tool-status-'))
    await mkdir(join(repository, '.git'))
    const run = await stack.host.resources.agents.build({ workspaceRoot: repository })
    try {
      // A Build role is not built at all while Build is disabled; the supervisor hears why.
      assert.match(
        run.unavailableTools.find(
          (u) => u.agentId === 'orchistrator' && u.tool === 'agent-build-maintainer',
        )?.reason ?? '',
        /AKURAI_BUILD_API_KEY is not set/,
      )
      for (const id of ['reviewer']) {
        const reported = (await statusesOf(id)).filter((s) => !s.available)
        const dropped = run.unavailableTools.filter((u) => u.agentId === id)
        assert.deepEqual(
          dropped.map((u) => [u.tool, u.reason]),
          reported.map((s) => [s.tool, !s.available && s.reason]),
        )
      }
    } finally {
      await run.dispose()
      await rm(repository, { recursive: true, force: true })
    }

    // An edit shows on the next read; an unknown agent is a 404.
    const kept = reviewerRow.tools.filter((t) => t !== 'browser')
    await okJson(
      await api.agents[':id'].$patch({ param: { id: 'reviewer' }, json: { tools: kept } }),
    )
    assert.deepEqual(
      (await statusesOf('reviewer')).map((s) => s.tool),
      kept,
    )
    await okJson(
      await api.agents[':id'].$patch({
        param: { id: 'reviewer' },
        json: { tools: reviewerRow.tools },
      }),
    )
    const missing = await api.agents[':id'].tools.$get({ param: { id: 'no-such-agent' } })
    assert.equal(missing.status, 404)
  })

  test('a generation uses the route, the row instructions and the skill tools', async () => {
    const { supervisor } = await stack.host.resources.agents.build()
    stack.gateway.enqueue({ text: 'hello from the scripted gateway' })
    const result = await supervisor.generate('Say hello.', {
      requestContext: await context('remote/big'),
      maxSteps: 1,
    })
    assert.equal(result.text, 'hello from the scripted gateway')
    const call = stack.gateway.requests.filter((r) => r.path === '/v1/chat/completions').at(-1)!
    assert.equal(call.body.model, 'remote/big')
    const system = call.body.messages
      .filter((m: any) => m.role === 'system')
      .map((m: any) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
      .join('\n')
    const row = await okJson(
      await typedClient(stack.edge()).api.agents[':id'].$get({ param: { id: 'orchistrator' } }),
    )
    assert.ok(
      system.includes(row.instructions.slice(0, 200)),
      'the row instructions are the prompt',
    )
    const toolNames = (call.body.tools ?? []).map((t: any) => t.function?.name)
    for (const name of ['skill', 'skill_read', 'skill_search']) {
      assert.ok(toolNames.includes(name), `${name} in ${toolNames.join(', ')}`)
    }
    assert.ok(toolNames.includes('agent-implementer'), toolNames.join(', '))
  })

  test('local routes never have more than the limit of generations at the gateway', async () => {
    // The supervisor has no override, so the request's local route is what reaches the gateway.
    const { supervisor } = await stack.host.resources.agents.build()
    const requestContext = await context('titan/local')
    const seen = stack.gateway.requests.length
    let peak = 0
    stack.gateway.respondWith(() => {
      peak = Math.max(peak, stack.gateway.active() + 1)
      return { text: ['a', 'b', 'c'], delayMs: 60, chunkDelayMs: 10 }
    })
    try {
      const runs = Array.from({ length: 5 }, () =>
        supervisor.generate('Go.', { requestContext, maxSteps: 1 }),
      )
      const texts = (await Promise.all(runs)).map((r) => r.text)
      assert.deepEqual(texts, Array(5).fill('abc'))
      const models = stack.gateway.requests.slice(seen).map((r) => r.body?.model)
      assert.deepEqual(models, Array(5).fill('titan/local'))
      assert.ok(peak <= 2, `peak ${peak}`)
      assert.equal(peak, 2)
      assert.deepEqual(stack.host.resources.localModels.queue.stats(), {
        limit: 2,
        active: 0,
        queued: 0,
      })
    } finally {
      stack.gateway.respondWith(undefined)
    }
  })
})
