/**
 * Cross-session recall (X2) through a real stack: a fact told in one session reaches another
 * session's next model request inside one <recall> system message, with the session and turn it
 * came from; the activity says what was used; an embedding outage falls back to full text and
 * says so without failing the turn; with recall off nothing is injected and nothing is embedded.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { and, eq } from '../db/drizzle-orm.ts'
import { recallItems } from '../db/schema/index.ts'
import { createSession } from './support/api-fixtures.ts'
import { markRoles, messagesOf, postChat, roleOf } from './support/chat.ts'
import type { RecordedRequest } from './support/scripted-gateway.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient } from './support/typed-client.ts'
import { readUiStream, streamedText } from './support/ui-stream.ts'
import { until, waitFor } from './support/until.ts'
import { pgvectorMissing } from './support/pgvector.ts'

const NO_VECTORS = await pgvectorMissing()

const FACT = 'the staging database listens on port 6543 behind pgbouncer-zq7'

describe('cross-session recall', () => {
  let stack: TestStack
  let url: string
  let factSession: string
  before(async () => {
    stack = await startTestStack({ models: [{ id: 'remote/a' }] })
    url = await stack.listen()
    await markRoles(stack, ['orchistrator', 'researcher', 'implementer', 'reviewer'])
    const api = typedClient(stack.edge()).api
    await okJson(await api.settings.memory.$patch({ json: { embeddingModel: 'embed/test' } }), 200)
    stack.gateway.respondWith((r) =>
      roleOf(r) === 'orchistrator' ? { text: 'Noted.' } : undefined,
    )
  })
  after(() => stack.stop())

  /** One turn; the supervisor's first model request of it and the stream's chunks. */
  async function turn(sessionId: string, text: string) {
    const seen = stack.gateway.requests.length
    const res = await postChat(url, { sessionId, text })
    assert.equal(res.status, 200, await res.clone().text())
    const chunks = await readUiStream(res)
    assert.equal(streamedText(chunks), 'Noted.')
    const requests = stack.gateway.requests.slice(seen)
    const first = requests.find(
      (r) => r.path === '/v1/chat/completions' && roleOf(r) === 'orchistrator',
    )!
    const activity = chunks.filter(
      (c) => c.type === 'data-agentActivity' && c.data.tool === 'recall',
    )
    return { first, chunks, requests, recall: activity.at(-1)?.data }
  }
  const recallBlocks = (request: RecordedRequest) =>
    messagesOf(request)
      .filter((m) => m.role === 'system' && String(m.content).includes('<recall>'))
      .map((m) => String(m.content))

  test('a fact told in one session is in the next session’s model request, with provenance', async () => {
    factSession = await createSession(stack.edge())
    const told = await turn(factSession, `Remember this: ${FACT}.`)
    assert.deepEqual(recallBlocks(told.first), [], 'nothing to recall yet')
    // The span is indexed and embedded after the turn completes.
    const db = stack.database.db
    await until(async () => {
      const rows = await db
        .select()
        .from(recallItems)
        .where(and(eq(recallItems.sessionId, factSession), eq(recallItems.kind, 'message_span')))
      return rows.length === 1
    })
    const other = await createSession(stack.edge())
    const asked = await turn(other, 'Which port does the staging database listen on?')
    const blocks = recallBlocks(asked.first)
    assert.equal(blocks.length, 1, 'one recall system message')
    const block = blocks[0]!
    assert.match(block, /port 6543 behind pgbouncer-zq7/)
    assert.match(block, new RegExp(`session ${factSession}`))
    assert.match(block, /turn trn_/)
    assert.match(block, /earlier session/)
    // The query was embedded through the gateway's /v1/embeddings with the settings' model;
    // without pgvector recall is full text only (and never embeds).
    const embeddings = asked.requests.filter((r) => r.path === '/v1/embeddings')
    assert.equal(
      embeddings.some((r) => r.body.model === 'embed/test'),
      !NO_VECTORS,
    )
    // The activity lists what was used, with the same provenance.
    assert.equal(asked.recall?.status, 'completed')
    assert.match(
      asked.recall?.output ?? '',
      NO_VECTORS ? /^full-text: pgvector is not available; 1 item\(s\)/ : /^hybrid; \d+ item\(s\)/,
    )
    assert.match(asked.recall?.output ?? '', new RegExp(`session ${factSession}`))
    // The block is never saved with the session (system messages stay out of the thread).
    const saved = await okJson(
      await typedClient(stack.edge()).api.sessions[':id'].$get({ param: { id: other } }),
      200,
    )
    assert.doesNotMatch(
      JSON.stringify(saved.messages.filter((m) => m.role !== 'assistant')),
      /<recall>/,
    )
  })

  test('a user memory is recalled with its memory id', async () => {
    const memory = await okJson(
      await typedClient(stack.edge()).api.memories.$post({
        json: { content: 'Release branches are named release/yyyy-mm and cut on Mondays' },
      }),
      201,
    )
    const session = await createSession(stack.edge())
    const asked = await turn(session, 'How are release branches named?')
    const block = recallBlocks(asked.first)[0] ?? ''
    assert.match(block, new RegExp(`mem:${memory.id} · user memory`))
    assert.match(block, /release\/yyyy-mm/)
  })

  test(
    'an embedding outage costs the vector leg only, and the activity says so',
    { skip: NO_VECTORS },
    async () => {
      stack.gateway.failEmbeddings(500)
      try {
        const session = await createSession(stack.edge())
        const asked = await turn(session, 'Remind me about the staging database port')
        assert.match(recallBlocks(asked.first)[0] ?? '', /port 6543/)
        assert.match(
          asked.recall?.output ?? '',
          /^full-text: embeddings failed .*full-text recall only/,
        )
      } finally {
        stack.gateway.failEmbeddings(undefined)
      }
    },
  )

  test('a task gets the same recall block before its first step', async () => {
    const api = typedClient(stack.edge()).api
    const prompt = 'Check which port the staging database listens on'
    await okJson(await api.tasks.$post({ json: { workspaceId: 'wsp_default', prompt } }), 201)
    const request = await waitFor(
      () =>
        stack.gateway.requests.find(
          (r) =>
            r.path === '/v1/chat/completions' &&
            roleOf(r) === 'orchistrator' &&
            JSON.stringify(messagesOf(r)).includes(prompt),
        ),
      30_000,
      "the task's first model request",
    )
    const block = recallBlocks(request)[0] ?? ''
    assert.match(block, /port 6543 behind pgbouncer-zq7/)
    assert.match(block, new RegExp(`session ${factSession}`))
  })

  test('with recall off nothing is injected and nothing is embedded for the turn', async () => {
    const api = typedClient(stack.edge()).api
    await okJson(await api.settings.memory.$patch({ json: { recallEnabled: false } }), 200)
    try {
      const session = await createSession(stack.edge())
      const asked = await turn(session, 'Which port does the staging database listen on?')
      assert.deepEqual(recallBlocks(asked.first), [])
      assert.equal(asked.recall, undefined)
      const beforeAnswer = asked.requests.filter(
        (r) => r.path === '/v1/embeddings' && r.at <= asked.first.at,
      )
      assert.deepEqual(beforeAnswer, [], 'no embedding before the model call')
    } finally {
      await okJson(await api.settings.memory.$patch({ json: { recallEnabled: true } }), 200)
    }
  })
})
