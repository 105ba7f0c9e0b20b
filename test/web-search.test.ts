import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { searchSearxng } from '../compute-host/tools/web-search.ts'
import { AgentActivity } from '../runtime/contracts/chat.ts'
import { markRoles, postChat, roleOf, toolResultsOf } from './support/chat.ts'
import { startFakeSearxng } from './support/fake-searxng.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient } from './support/typed-client.ts'
import { readUiStream } from './support/ui-stream.ts'

describe('web search against SearXNG', () => {
  test('results are bounded, unsafe links dropped, snippets cut', async () => {
    const searxng = await startFakeSearxng({ results: 15 })
    try {
      const results = await searchSearxng({ baseUrl: searxng.url })('mastra agents')
      assert.equal(searxng.queries[0], 'mastra agents')
      assert.equal(results.length, 10)
      assert.ok(results.every((r) => r.url.startsWith('https://')))
      assert.ok(results.every((r) => r.snippet.length <= 500))
      assert.equal(results[0]!.title, 'Result 0 for mastra agents')
    } finally {
      await searxng.close()
    }
  })

  test('a SearXNG without the JSON format says how to enable it', async () => {
    const searxng = await startFakeSearxng()
    searxng.fail(403)
    try {
      await assert.rejects(searchSearxng({ baseUrl: searxng.url })('x'), /enable "json"/)
    } finally {
      await searxng.close()
    }
  })

  test('an unreachable SearXNG is a clear error naming the URL and the fix', async () => {
    await assert.rejects(
      searchSearxng({ baseUrl: 'http://127.0.0.1:9' })('x'),
      /SearXNG is not reachable at http:\/\/127\.0\.0\.1:9; start it or set SEARXNG_URL/,
    )
  })
})

describe('web search in a turn', () => {
  let stack: TestStack
  let searxng: Awaited<ReturnType<typeof startFakeSearxng>>
  let url: string
  before(async () => {
    searxng = await startFakeSearxng()
    stack = await startTestStack({
      models: [{ id: 'remote/a' }],
      hostEnv: { SEARXNG_URL: searxng.url },
    })
    url = await stack.listen()
    await markRoles(stack, ['orchistrator', 'researcher'])
  })
  after(async () => {
    await stack.stop()
    await searxng.close()
  })

  test('a specialist’s tool call streams as activity with its result', async () => {
    const sessions = typedClient(url).api.sessions
    const sessionId = (await okJson(await sessions.$post({ json: {} }))).id
    stack.gateway.respondWith((r) => {
      const tools = toolResultsOf(r).length
      if (roleOf(r) === 'orchistrator') {
        return tools === 0
          ? { toolCalls: [{ name: 'agent-researcher', arguments: { prompt: 'search it' } }] }
          : { text: 'summary' }
      }
      return tools === 0
        ? { toolCalls: [{ name: 'web-search', arguments: { query: 'bubblewrap netns' } }] }
        : { text: 'found it' }
    })
    try {
      const chunks = await readUiStream(
        await postChat(url, { sessionId, model: 'remote/a', text: 'look up bubblewrap' }),
      )
      const toolActivity = chunks.filter(
        (c) => c.type === 'data-agentActivity' && c.data.kind === 'tool',
      )
      const final = toolActivity.at(-1)!.data
      assert.equal(final.agentId, 'researcher')
      assert.equal(final.tool, 'web-search')
      assert.equal(final.status, 'completed')
      assert.match(final.output, /Result 0 for bubblewrap netns/)
      assert.deepEqual(searxng.queries.at(-1), 'bubblewrap netns')
      const session = await okJson(await sessions[':id'].$get({ param: { id: sessionId } }), 200)
      const saved = session.messages[1]!.parts.filter((p) => p.type === 'data-agentActivity')
      assert.deepEqual(
        saved.map((p) => AgentActivity.parse(p.data)).map((a) => [a.kind, a.agentId, a.status]),
        [
          ['delegation', 'researcher', 'completed'],
          ['tool', 'researcher', 'completed'],
        ],
      )
    } finally {
      stack.gateway.respondWith(undefined)
    }
  })
})
