import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { eq } from '../db/drizzle-orm.ts'
import { agentSkills } from '../db/schema/index.ts'
import { AGENT_ROLE_SEED } from '../db/seeds/agent-roles.ts'
import { AGENT_SKILL_SEED } from '../db/seeds/agent-skills.ts'
import { toolRefusal } from '../runtime/agents/tool-policy.ts'
import { json } from './support/app.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { errorJson, okJson, typedClient } from './support/typed-client.ts'

const SEEDED_IDS = [
  'orchistrator',
  'build-maintainer',
  'build-release-manager',
  'community-steward',
  'implementer',
  'researcher',
  'reviewer',
]

test('every seeded role passes the tool rules it will be edited under', () => {
  for (const agent of AGENT_ROLE_SEED) {
    for (const tool of agent.tools) assert.equal(toolRefusal(agent, tool), null, agent.id)
  }
  const names = AGENT_SKILL_SEED.map((s) => `${s.agentId}/${s.name}`)
  assert.equal(new Set(names).size, names.length)
})

describe('/api/agents', () => {
  let stack: TestStack
  before(async () => (stack = await startTestStack({ models: [{ id: 'cx/gpt-5.3-codex-spark' }] })))
  after(() => stack.stop())
  const agents = () => typedClient(stack.edge()).api.agents
  const getAgent = async (id: string) => okJson(await agents()[':id'].$get({ param: { id } }))
  // Untyped on purpose: most of these bodies are ones the contract refuses.
  const patch = (id: string, body: unknown) =>
    stack.edge().request(`/api/agents/${id}`, json(body, { method: 'PATCH' }))

  test('lists the seven seeded agents, supervisor first, with their model overrides', async () => {
    const { agents: listed } = await okJson(await agents().$get(), 200)
    assert.deepEqual(
      listed.map((a) => a.id),
      SEEDED_IDS,
    )
    const byId = Object.fromEntries(listed.map((a) => [a.id, a]))
    assert.ok(byId.orchistrator && byId.researcher && byId.reviewer && byId.implementer)
    assert.equal(byId.orchistrator.displayName, 'Orchestrator')
    assert.equal(byId.orchistrator.delegationEligible, false)
    assert.equal(byId.researcher.modelOverride, 'cx/gpt-5.3-codex-spark')
    assert.equal(byId.reviewer.modelOverride, 'cx/gpt-5.3-codex-spark')
    assert.equal(byId.implementer.modelOverride, null)
    assert.equal(byId.researcher.workspaceAccess, 'read-only')
    for (const a of listed) assert.ok(a.instructions.length > 500, a.id)
  })

  test('an edit persists and GET shows it', async () => {
    const res = await agents()[':id'].$patch({
      param: { id: 'reviewer' },
      json: { displayName: 'Strict Reviewer', tools: ['web-search'] },
    })
    assert.equal(res.status, 200, await res.clone().text())
    const got = await getAgent('reviewer')
    assert.equal(got.displayName, 'Strict Reviewer')
    assert.deepEqual(got.tools, ['web-search'])
  })

  const refusals: [string, unknown, RegExp][] = [
    ['implementer', { tools: ['workspace-read', 'teleport'] }, /"teleport" is not a known tool/],
    ['researcher', { tools: ['build-runs'] }, /"build-runs" is a Build tool/],
    ['community-steward', { tools: ['build-promote'] }, /"build-promote" is outside/],
    ['build-release-manager', { tools: ['build-workers'] }, /"build-workers" is outside/],
    ['researcher', { tools: ['workspace-write'] }, /"workspace-write" needs read-write/],
    ['implementer', { tools: ['browser'] }, /"browser" needs browser access/],
    ['implementer', { workspaceAccess: 'read-only' }, /"workspace-write" needs read-write/],
    ['implementer', { tools: ['shell', 'shell'] }, /"shell" is listed twice/],
  ]
  for (const [id, body, message] of refusals) {
    test(`refuses ${JSON.stringify(body)} on ${id} with a 400 naming the tool`, async () => {
      const before = await getAgent(id)
      const { error } = await errorJson(await patch(id, body), 400)
      assert.equal(error.code, 'INVALID_TOOL_MEMBERSHIP')
      assert.match(error.message, message)
      const after = await getAgent(id)
      assert.deepEqual(after, before)
    })
  }

  test('Build tools in the role allowlist are accepted', async () => {
    const res = await patch('build-release-manager', { tools: ['build-releases', 'build-runs'] })
    assert.equal(res.status, 200)
  })

  test('the supervisor cannot become a delegation target; bad bodies and ids are 4xx', async () => {
    const res = await patch('orchistrator', { delegationEligible: true })
    assert.equal((await errorJson(res, 400)).error.code, 'SUPERVISOR_NOT_DELEGABLE')
    assert.equal((await patch('nobody', { displayName: 'x' })).status, 404)
    assert.equal((await patch('implementer', {})).status, 400)
    assert.equal((await patch('implementer', { id: 'renamed' })).status, 400)
    assert.equal((await patch('implementer', { sourceUrls: ['file:///etc/passwd'] })).status, 400)
    assert.equal((await patch('Bad Id', { displayName: 'x' })).status, 400)
  })
})

describe('/api/agents/:id/skills', () => {
  let stack: TestStack
  before(async () => (stack = await startTestStack()))
  after(() => stack.stop())
  const req = (path: string, init?: RequestInit) => stack.edge().request(path, init)
  const skills = () => typedClient(stack.edge()).api.agents[':id'].skills
  const skill = () => typedClient(stack.edge()).api.agents[':id'].skills[':skillId']
  const listSkills = async (id: string) =>
    (await okJson(await skills().$get({ param: { id } }))).skills

  test('two seeded, source-attributed skills per agent', async () => {
    for (const id of SEEDED_IDS) {
      const seeded = await listSkills(id)
      assert.equal(seeded.length, 2, id)
      for (const s of seeded) {
        assert.match(s.sourceUrl ?? '', /^https:\/\//)
        assert.equal(s.enabled, true)
        assert.equal(s.evolutionManaged, false)
        assert.ok(Object.keys(s.references).length >= 1)
      }
    }
  })

  test('create, update, disable and delete a skill', async () => {
    const created = await skills().$post({
      param: { id: 'implementer' },
      json: {
        name: 'migration-safety',
        description: 'Use when a change touches a SQL migration.',
        instructions: 'Never edit a shipped migration; add a new one.',
        references: { 'checklist.md': '- add, never edit' },
      },
    })
    const made = await okJson(created, 201)
    assert.match(made.id, /^skl_/)
    assert.equal(made.enabled, true)

    const duplicate = await skills().$post({
      param: { id: 'implementer' },
      json: { name: 'migration-safety', description: 'x', instructions: 'y' },
    })
    assert.equal(duplicate.status, 409)

    const patched = await skill().$patch({
      param: { id: 'implementer', skillId: made.id },
      json: { enabled: false, instructions: 'Add a new migration.' },
    })
    assert.equal((await okJson(patched, 200)).enabled, false)

    // Another agent's path cannot reach this skill.
    const remove = (id: string) => skill().$delete({ param: { id, skillId: made.id } })
    assert.equal((await remove('reviewer')).status, 404)
    assert.equal((await remove('implementer')).status, 200)
    assert.equal((await remove('implementer')).status, 404)
  })

  test('any ordinary edit clears evolutionManaged', async () => {
    const [target] = await listSkills('researcher')
    assert.ok(target)
    // The learning loop marks rows it owns; simulate one it wrote.
    await stack.host.resources.databases.application.db
      .update(agentSkills)
      .set({ evolutionManaged: true })
      .where(eq(agentSkills.id, target.id))
    const marked = await listSkills('researcher')
    assert.equal(marked[0]?.evolutionManaged, true)
    const res = await skill().$patch({
      param: { id: 'researcher', skillId: target.id },
      json: { description: 'Edited by the owner.' },
    })
    assert.equal((await okJson(res)).evolutionManaged, false)
  })

  const badSkills: [string, unknown][] = [
    ['an upper-case name', { name: 'Bad-Name', description: 'd', instructions: 'i' }],
    ['a double hyphen', { name: 'bad--name', description: 'd', instructions: 'i' }],
    ['a 65-character name', { name: 'a'.repeat(65), description: 'd', instructions: 'i' }],
    ['a long description', { name: 'ok', description: 'd'.repeat(1025), instructions: 'i' }],
    // 1,024 characters but 2,048 UTF-16 code units: Mastra's loader counts the latter.
    [
      'a description of 1,024 emoji',
      { name: 'ok', description: '😀'.repeat(1024), instructions: 'i' },
    ],
    [
      'an escaping reference',
      { name: 'ok', description: 'd', instructions: 'i', references: { '../x.md': 'x' } },
    ],
    [
      'an unknown field',
      { name: 'ok', description: 'd', instructions: 'i', evolutionManaged: true },
    ],
  ]
  for (const [what, body] of badSkills) {
    test(`refuses a skill with ${what}`, async () => {
      const res = await req('/api/agents/implementer/skills', json(body, { method: 'POST' }))
      assert.equal(res.status, 400)
    })
  }

  test('skills of a missing agent are a 404', async () => {
    assert.equal((await req('/api/agents/nobody/skills')).status, 404)
  })
})
