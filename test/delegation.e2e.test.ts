/**
 * The delegation contract (C4) through real turns: step ceilings with the final step reserved,
 * result truncation and failure text from the settings snapshot, and specialist context slicing.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { json } from './support/app.ts'
import type { RecordedRequest, Reply } from './support/scripted-gateway.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { readUiStream, streamedText } from './support/ui-stream.ts'
import { messagesOf, postChat, roleOf, toolResultsOf } from './support/chat.ts'
import { okJson, typedClient } from './support/typed-client.ts'

const ROUTE = 'remote/selected'
// With tool choice 'none' the provider leaves the tools out of the request altogether.
const noTools = (r: RecordedRequest) => (r.body.tools ?? []).length === 0
const toolResults = (r: RecordedRequest) =>
  toolResultsOf(r).map((m) =>
    typeof m.content === 'string' ? m.content : JSON.stringify(m.content),
  )

describe('delegation bounds', () => {
  let stack: TestStack
  let url: string
  before(async () => {
    stack = await startTestStack({ models: [{ id: ROUTE }] })
    url = await stack.listen()
    for (const id of ['orchistrator', 'researcher']) {
      await stack
        .edge()
        .request(
          `/api/agents/${id}`,
          json({ instructions: `ROLE:${id}`, modelOverride: null }, { method: 'PATCH' }),
        )
    }
    const res = await stack.edge().request(
      '/api/settings/agent-runtime',
      json(
        {
          supervisorMaxSteps: 4,
          specialistMaxSteps: 3,
          delegationResultMaxChars: 100,
          delegationTruncationText: ' [cut]',
          delegationFailureText: 'The specialist failed; continue without it.',
          finalResponseFeedback: 'FINAL STEP: answer now without tools.',
          delegationContextMaxMessages: 1,
        },
        { method: 'PATCH' },
      ),
    )
    assert.equal(res.status, 200, await res.clone().text())
  })
  after(() => stack.stop())

  async function turn(respond: (r: RecordedRequest) => Reply | undefined) {
    const created = await typedClient(url).api.sessions.$post({ json: {} })
    const sessionId = (await okJson(created)).id
    const seen = stack.gateway.requests.length
    stack.gateway.respondWith(respond)
    try {
      const res = await postChat(url, { sessionId, model: ROUTE, text: 'Go' })
      const chunks = await readUiStream(res)
      const calls = stack.gateway.requests
        .slice(seen)
        .filter((r) => r.path === '/v1/chat/completions')
      return { chunks, calls }
    } finally {
      stack.gateway.respondWith(undefined)
    }
  }

  const delegateOnce = (reply: (r: RecordedRequest) => Reply) => (r: RecordedRequest) => {
    if (roleOf(r) === 'orchistrator') {
      return toolResults(r).length === 0
        ? { toolCalls: [{ name: 'agent-researcher', arguments: { prompt: 'look', maxSteps: 50 } }] }
        : { text: 'done' }
    }
    return reply(r)
  }

  test('a long specialist result reaches the supervisor truncated with the configured marker', async () => {
    const long = 'x'.repeat(300)
    const { calls } = await turn(delegateOnce(() => ({ text: long })))
    const final = calls.filter((c) => roleOf(c) === 'orchistrator').at(-1)!
    const [result] = toolResults(final)
    assert.ok(result!.includes(`${'x'.repeat(100)} [cut]`), result)
    assert.ok(!result!.includes('x'.repeat(101)), 'no more than the bound')
  })

  test('a failed delegation returns the configured failure text', async () => {
    const { calls, chunks } = await turn(
      delegateOnce(() => ({ status: 400, message: 'bad request upstream' })),
    )
    const final = calls.filter((c) => roleOf(c) === 'orchistrator').at(-1)!
    assert.ok(toolResults(final)[0]!.includes('The specialist failed; continue without it.'))
    const failed = chunks.filter(
      (c) => c.type === 'data-agentActivity' && c.data.status === 'failed',
    )
    assert.equal(failed.length, 1)
    assert.equal(streamedText(chunks), 'done')
  })

  test('a specialist cannot exceed its ceiling and its last step is tool-free', async () => {
    const { calls } = await turn(
      delegateOnce((r) =>
        noTools(r)
          ? { text: 'forced answer' }
          : { toolCalls: [{ name: 'skill_search', arguments: { query: 'anything' } }] },
      ),
    )
    const research = calls.filter((c) => roleOf(c) === 'researcher')
    assert.equal(research.length, 3, 'the supervisor asked for 50 steps; the ceiling is 3')
    assert.ok(noTools(research.at(-1)!), 'no tools offered on the last step')
    assert.ok(JSON.stringify(research.at(-1)!.body.messages).includes('FINAL STEP'))
    const final = calls.filter((c) => roleOf(c) === 'orchistrator').at(-1)!
    assert.ok(toolResults(final)[0]!.includes('forced answer'))
  })

  test('the supervisor’s final step is reserved for the answer', async () => {
    const { calls, chunks } = await turn((r) => {
      if (roleOf(r) !== 'orchistrator') return { text: 'noted' }
      return noTools(r)
        ? { text: 'final answer' }
        : { toolCalls: [{ name: 'agent-researcher', arguments: { prompt: 'again' } }] }
    })
    const supervisor = calls.filter((c) => roleOf(c) === 'orchistrator')
    assert.equal(supervisor.length, 4)
    assert.ok(noTools(supervisor.at(-1)!), 'no tools offered on the last step')
    assert.ok(!noTools(supervisor[0]!))
    assert.ok(JSON.stringify(supervisor.at(-1)!.body.messages).includes('FINAL STEP'))
    assert.equal(streamedText(chunks), 'final answer')
  })

  test('a specialist sees at most the configured number of parent messages', async () => {
    const { calls } = await turn(delegateOnce(() => ({ text: 'ok' })))
    const research = calls.find((c) => roleOf(c) === 'researcher')!
    const nonSystem = messagesOf(research).filter((m) => m.role !== 'system')
    // One forwarded parent message plus the delegation prompt itself.
    assert.ok(nonSystem.length <= 2, JSON.stringify(nonSystem))
  })
})
