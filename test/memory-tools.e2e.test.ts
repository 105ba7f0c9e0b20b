/**
 * The agents' memory tools through real turns: `retain-fact` stores nothing while automatic fact
 * retention is off, can never change a user memory (refused with the clear error, the memory
 * unchanged), and keeps a fact with the turn's provenance when allowed; `memory-search` finds it.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createSession } from './support/api-fixtures.ts'
import { markRoles, offeredTools, postChat, roleOf, toolResultsOf } from './support/chat.ts'
import type { Reply, ToolCallScript } from './support/scripted-gateway.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient } from './support/typed-client.ts'
import { readUiStream } from './support/ui-stream.ts'

describe('memory tools in a real turn', () => {
  let stack: TestStack
  let url: string
  let api: ReturnType<typeof typedClient>['api']
  before(async () => {
    stack = await startTestStack({ models: [{ id: 'remote/a' }] })
    url = await stack.listen()
    await markRoles(stack, ['orchistrator', 'researcher', 'implementer', 'reviewer'])
    api = typedClient(stack.edge()).api
  })
  after(() => stack.stop())

  /** A turn whose supervisor makes `calls` one after another, then answers; the tool results. */
  async function turn(sessionId: string, calls: ToolCallScript[]) {
    const seen = stack.gateway.requests.length
    stack.gateway.respondWith((r): Reply | undefined => {
      if (roleOf(r) !== 'orchistrator') return undefined
      const next = calls[toolResultsOf(r).length]
      return next ? { toolCalls: [next] } : { text: 'Done.' }
    })
    await readUiStream(await postChat(url, { sessionId, text: 'Please keep what we learnt.' }))
    const requests = stack.gateway.requests
      .slice(seen)
      .filter((r) => r.path === '/v1/chat/completions' && roleOf(r) === 'orchistrator')
    return {
      offered: offeredTools(requests[0]!),
      results: toolResultsOf(requests.at(-1)!).map((m) => String(m.content)),
    }
  }

  test('every role is offered both tools; retain-fact stores nothing while retention is off', async () => {
    const session = await createSession(stack.edge())
    const { offered, results } = await turn(session, [
      { name: 'retain-fact', arguments: { key: 'package-manager', content: 'npm' } },
    ])
    assert.ok(offered.includes('memory-search') && offered.includes('retain-fact'), `${offered}`)
    assert.match(results[0]!, /automatic fact retention is off/)
    const facts = await okJson(await api.memories.$get({ query: { owner: 'agent' } }), 200)
    assert.deepEqual(facts.memories, [])
  })

  test('an agent cannot change a user memory; a fact it keeps carries the turn’s provenance', async () => {
    const mine = await okJson(
      await api.memories.$post({ json: { content: 'The owner decides the package manager.' } }),
      201,
    )
    await okJson(
      await api.settings.autonomy.$patch({ json: { automaticFactRetention: true } }),
      200,
    )
    const session = await createSession(stack.edge())
    const { results } = await turn(session, [
      {
        name: 'retain-fact',
        arguments: { key: 'package-manager', content: 'rewritten by the agent', replaces: mine.id },
      },
      { name: 'retain-fact', arguments: { key: 'package-manager', content: 'the repo uses pnpm' } },
    ])
    assert.match(results[0]!, /written by the user; only the user can change or delete it/)
    assert.match(results[1]!, /kept package-manager as mem_/)
    const unchanged = await okJson(await api.memories[':id'].$get({ param: { id: mine.id } }), 200)
    assert.equal(unchanged.content, 'The owner decides the package manager.')
    assert.equal(unchanged.updatedAt, mine.updatedAt)
    const facts = await okJson(await api.memories.$get({ query: { owner: 'agent' } }), 200)
    assert.equal(facts.memories.length, 1)
    const fact = facts.memories[0]!
    assert.equal(fact.agentId, 'orchistrator')
    assert.equal(fact.content, 'the repo uses pnpm')
    assert.equal(fact.provenance.sessionId, session)
    assert.match(fact.provenance.turnId ?? '', /^trn_/)
  })

  test('memory-search finds the fact with its provenance', async () => {
    const session = await createSession(stack.edge())
    const { results } = await turn(session, [
      { name: 'memory-search', arguments: { query: 'which package manager does the repo use' } },
    ])
    assert.match(results[0]!, /agent fact .*\] the repo uses pnpm/)
  })
})
