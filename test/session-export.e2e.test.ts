/**
 * Session export (B4) through a real stack: a session with a real turn (its activity and usage)
 * and planted canary secrets — a configured gateway key and a secret the host learnt while
 * running — in a message, in an activity output and in a part's key, raw and in each encoding the
 * redactor knows. Neither format contains any of them; the Markdown reads as text, the JSON parses.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createSession } from './support/api-fixtures.ts'
import { markRoles, postChat, roleOf } from './support/chat.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient } from './support/typed-client.ts'
import { readUiStream } from './support/ui-stream.ts'

const GATEWAY_KEY = 'gw-canary-7Qp2xL9vT4mZ8rK1'
const LEARNT = 'vault-canary-Hs83kPq0Zx71Lw5n'

const encodings = (secret: string) => {
  const base64 = Buffer.from(secret).toString('base64')
  return [
    secret,
    base64,
    base64.replace(/=+$/, ''),
    Buffer.from(secret).toString('base64url'),
    Buffer.from(secret).toString('hex'),
    encodeURIComponent(secret),
  ]
}

describe('session export', () => {
  let stack: TestStack
  let sessionId: string
  let edge: ReturnType<TestStack['edge']>
  before(async () => {
    stack = await startTestStack({
      models: [{ id: 'remote/a' }],
      hostEnv: { NINEROUTER_API_KEY: GATEWAY_KEY },
    })
    const url = await stack.listen()
    edge = stack.edge()
    await markRoles(stack, ['orchistrator', 'researcher', 'implementer', 'reviewer'])
    // A secret the host learns while it runs (a vault entry): redacted from then on.
    stack.host.resources.redactor.add(LEARNT)
    stack.gateway.respondWith((r) =>
      roleOf(r) === 'orchistrator' ? { text: `The *answer*, with \`\`\` inside.` } : undefined,
    )
    sessionId = await createSession(edge)
    await readUiStream(await postChat(url, { sessionId, text: 'Summarise the build ```script```' }))
    // Plant the canaries where a client can write: the session's saved messages.
    const api = typedClient(edge).api.sessions
    const current = await okJson(await api[':id'].$get({ param: { id: sessionId } }), 200)
    const planted = encodings(GATEWAY_KEY).concat(encodings(LEARNT)).join(' | ')
    await okJson(
      await api[':id'].$put({
        param: { id: sessionId },
        json: {
          revision: current.revision,
          messages: [
            ...current.messages,
            {
              id: 'planted-1',
              role: 'user',
              parts: [{ type: 'text', text: `my keys: ${planted}` }],
            },
            {
              id: 'planted-2',
              role: 'assistant',
              parts: [
                {
                  type: 'data-agentActivity',
                  data: {
                    kind: 'tool',
                    agentId: 'implementer',
                    agentName: 'Implementer',
                    tool: 'shell',
                    status: 'completed',
                    output: `env: TOKEN=${LEARNT}`,
                    startedAt: new Date().toISOString(),
                  },
                },
                { type: 'data-extra', [LEARNT]: GATEWAY_KEY },
              ],
            },
          ],
        },
      }),
      200,
    )
  })
  after(() => stack.stop())

  const exported = (format: 'md' | 'json') =>
    edge.request(`/api/sessions/${sessionId}/export?format=${format}`)

  for (const format of ['md', 'json'] as const) {
    test(`the ${format} export holds no planted secret in any encoding`, async () => {
      const res = await exported(format)
      assert.equal(res.status, 200, await res.clone().text())
      assert.match(
        res.headers.get('content-disposition') ?? '',
        new RegExp(`attachment; filename="popagent-${sessionId}\\.${format}"`),
      )
      const body = await res.text()
      for (const leaked of [...encodings(GATEWAY_KEY), ...encodings(LEARNT)]) {
        assert.ok(!body.includes(leaked), `${format} export contains ${leaked}`)
      }
      assert.ok(body.includes('[REDACTED]'), 'the planted values were replaced, not dropped')
    })
  }

  test('the Markdown export reads as text: title, turns, activity, fences that hold', async () => {
    const res = await exported('md')
    assert.match(res.headers.get('content-type') ?? '', /^text\/markdown/)
    const md = await res.text()
    assert.match(md, /^# Summarise the build/)
    assert.match(md, /## 1\. User\n\nSummarise the build ```script```/)
    assert.match(md, /## 2\. Assistant · turn trn_\w+ · model \S+\n\nThe \*answer\*/)
    assert.match(md, /Usage: \S+ \d+ in \/ \d+ out/)
    // The activity output holds no triple backtick, so its fence is three; a part's JSON fence
    // is always longer than any run inside it.
    assert.match(
      md,
      /- \*\*tool shell\*\* \(Implementer, completed\)\n {2}output:\n {2}```\n {2}env: TOKEN=\[REDACTED\]\n {2}```/,
    )
  })

  test('the JSON export is popagent.session.v1 with the whole session', async () => {
    const res = await exported('json')
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/)
    const doc = JSON.parse(await res.text())
    assert.equal(doc.format, 'popagent.session.v1')
    assert.equal(doc.session.id, sessionId)
    assert.equal(doc.session.messages.length, 4)
    assert.match(doc.session.messages[1].metadata.turnId, /^trn_/)
    assert.ok(Object.keys(doc.session.messages[3].parts[1]).includes('[REDACTED]'))
  })

  test('a missing session is a 404; a bad format a 400', async () => {
    const missing = await edge.request('/api/sessions/ses_00000000000000000000000000/export')
    assert.equal(missing.status, 404)
    const bad = await edge.request(`/api/sessions/${sessionId}/export?format=pdf`)
    assert.equal(bad.status, 400)
  })
})
