/**
 * OTLP/HTTP export (X7, optional): with OTEL_EXPORTER_OTLP_ENDPOINT set, a turn's spans reach a
 * collector (a loopback server reading OTLP JSON) under the turn's trace id, nested as stored, and
 * redacted as stored: a secret the host knows, sent in the prompt, never reaches the collector.
 */
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { after, before, test } from 'node:test'
import { AssistantMetadata } from '../runtime/contracts/chat.ts'
import { json } from './support/app.ts'
import { roleOf, toolResultsOf, userMessage } from './support/chat.ts'
import { closerOf, listenOnLoopback } from './support/loopback-server.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { readUiStream } from './support/ui-stream.ts'
import { until } from './support/until.ts'

const MODEL = 'remote/otlp'
const received: Array<{ path: string; body: any }> = []
let stack: TestStack
let closeCollector: () => Promise<void>

before(async () => {
  const collector = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      received.push({ path: req.url ?? '', body: JSON.parse(body) })
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  const url = `http://127.0.0.1:${await listenOnLoopback(collector)}`
  closeCollector = closerOf(collector)
  stack = await startTestStack({
    models: [{ id: MODEL }],
    hostEnv: { OTEL_EXPORTER_OTLP_ENDPOINT: url },
  })
  await stack.host.resources.observability.initialised
  for (const id of ['orchistrator', 'researcher']) {
    const res = await stack
      .edge()
      .request(
        `/api/agents/${id}`,
        json({ instructions: `ROLE:${id}`, modelOverride: null }, { method: 'PATCH' }),
      )
    assert.equal(res.status, 200)
  }
})
after(async () => {
  await stack?.stop()
  await closeCollector?.()
})

test("a turn's spans reach the collector, nested and redacted", async () => {
  // The host token is a secret the host's redactor knows.
  const secret = stack.host.token
  stack.gateway.respondWith((r) =>
    roleOf(r) === 'orchistrator' && toolResultsOf(r).length === 0
      ? { toolCalls: [{ name: 'agent-researcher', arguments: { prompt: `use ${secret}` } }] }
      : { text: 'done' },
  )
  const api = (path: string, body: unknown) =>
    stack.edge().request(path, json(body, { method: 'POST' }))
  const sessionId = ((await (await api('/api/sessions', {})).json()) as { id: string }).id
  const chunks = await readUiStream(
    await api('/api/chat', {
      sessionId,
      workspaceId: 'wsp_default',
      model: MODEL,
      message: userMessage(`remember ${secret}`),
    }),
  )
  stack.gateway.respondWith(undefined)
  const { traceId } = AssistantMetadata.parse(
    chunks.filter((c) => c.type === 'message-metadata').at(-1)?.messageMetadata,
  )
  await stack.host.resources.observability.queue.flush()
  const spans = () =>
    received.flatMap((r) =>
      r.body.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((s: any) => s.spans)),
    )
  await until(() => spans().some((s: any) => s.traceId === traceId && s.name === 'turn'), 10_000)
  assert.ok(received.every((r) => r.path === '/v1/traces'))
  const mine = spans().filter((s: any) => s.traceId === traceId)
  const root = mine.find((s: any) => s.name === 'turn')
  const agent = mine.find((s: any) => s.name.startsWith('agent '))
  assert.ok(agent, mine.map((s: any) => s.name).join())
  assert.equal(agent.parentSpanId, root.spanId)
  assert.ok(BigInt(root.endTimeUnixNano) >= BigInt(root.startTimeUnixNano))
  const input = agent.attributes.find((a: any) => a.key === 'popagent.input')?.value.stringValue
  assert.match(input, /^use \[REDACTED\]/)
  assert.ok(!JSON.stringify(received).includes(secret), 'no secret reaches the collector')
  assert.equal(stack.host.resources.observability.health().exportFailed, 0)
})
