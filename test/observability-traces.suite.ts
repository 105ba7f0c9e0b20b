/**
 * Traces and usage of real turns, on either observability database (a PostgreSQL of its own, or
 * the `observability` schema of the embedded instance): one trace per turn under the id the
 * assistant message reports, spans nested supervisor → delegation → the specialist's tool call,
 * payloads redacted, and usage told apart per agent when supervisor and specialist share a model.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { ComputeHost } from '../compute-host/main.ts'
import {
  INPUT_TOKENS_METRIC,
  OUTPUT_TOKENS_METRIC,
} from '../compute-host/observability/store-tracer.ts'
import { AssistantMetadata } from '../runtime/contracts/chat.ts'
import { json } from './support/app.ts'
import { roleOf, toolResultsOf, userMessage } from './support/chat.ts'
import type { RecordedRequest, ScriptedGateway } from './support/scripted-gateway.ts'
import { readUiStream } from './support/ui-stream.ts'

export const TRACE_MODEL = 'remote/shared'
const CANARY = 'sk-canaryCANARYcanary0123456789'

export type TracedStack = {
  host: () => ComputeHost
  gateway: ScriptedGateway
  request: (path: string, init?: RequestInit) => Response | Promise<Response>
  /** Names of the application database's tables, in every schema. */
  applicationTables: () => Promise<string[]>
  close: () => Promise<void>
}

/** The supervisor delegates once; the specialist searches the web, then answers. */
function script(r: RecordedRequest) {
  const answered = toolResultsOf(r).length > 0
  if (roleOf(r) === 'orchistrator') {
    return answered
      ? { text: 'all done', usage: { promptTokens: 300, completionTokens: 30 } }
      : {
          toolCalls: [{ name: 'agent-researcher', arguments: { prompt: `look up ${CANARY}` } }],
          usage: { promptTokens: 200, completionTokens: 20 },
        }
  }
  return answered
    ? { text: 'found it', usage: { promptTokens: 11, completionTokens: 4 } }
    : {
        toolCalls: [{ name: 'web-search', arguments: { query: 'popagent tracing' } }],
        usage: { promptTokens: 7, completionTokens: 3 },
      }
}

export function observabilityTracesSuite(name: string, open: () => Promise<TracedStack>) {
  describe(name, () => {
    let stack: TracedStack
    before(async () => {
      stack = await open()
      for (const id of ['orchistrator', 'researcher']) {
        const res = await stack.request(
          `/api/agents/${id}`,
          json({ instructions: `ROLE:${id}`, modelOverride: null }, { method: 'PATCH' }),
        )
        assert.equal(res.status, 200, await res.text())
      }
      await stack.host().resources.observability.initialised
    })
    after(() => stack?.close())

    async function turn() {
      const created = await stack.request('/api/sessions', json({}, { method: 'POST' }))
      const sessionId = ((await created.json()) as { id: string }).id
      stack.gateway.respondWith(script)
      const res = await stack.request(
        '/api/chat',
        json(
          {
            sessionId,
            workspaceId: 'wsp_default',
            model: TRACE_MODEL,
            message: userMessage('trace me'),
          },
          { method: 'POST' },
        ),
      )
      const chunks = await readUiStream(res)
      stack.gateway.respondWith(undefined)
      const metadata = AssistantMetadata.parse(
        chunks.filter((c) => c.type === 'message-metadata').at(-1)?.messageMetadata,
      )
      await stack.host().resources.observability.queue.flush()
      return { sessionId, metadata }
    }

    test('a turn is one trace under the id its assistant message reports, nested as it ran', async () => {
      const { sessionId, metadata } = await turn()
      const { storage, queue } = stack.host().resources.observability
      assert.equal(queue.stats().dropped, 0, queue.stats().lastError)
      const trace = await storage.getTrace({ traceId: metadata.traceId })
      assert.ok(trace, 'the turn has a stored trace')
      const spans = trace.spans
      for (const span of spans) {
        assert.equal(span.traceId, metadata.traceId)
        assert.equal(span.sessionId, sessionId, `${span.name} carries the session`)
      }
      const roots = spans.filter((s) => !s.parentSpanId)
      assert.equal(roots.length, 1)
      const root = roots[0]!
      assert.equal(root.name, 'turn')
      assert.equal(root.runId, metadata.turnId)
      const byId = new Map(spans.map((s) => [s.spanId, s]))
      for (const span of spans) {
        if (span.parentSpanId) assert.ok(byId.has(span.parentSpanId), `${span.name}'s parent`)
      }
      const delegation = spans.find((s) => s.spanType === 'agent_run')
      assert.ok(delegation, 'the delegation has a span')
      assert.equal(delegation.parentSpanId, root.spanId)
      assert.equal(delegation.entityId, 'researcher')
      const tool = spans.find((s) => s.spanType === 'tool_call' && s.entityName === 'web-search')
      assert.ok(tool, "the specialist's tool call has a span")
      assert.equal(tool.parentSpanId, delegation.spanId, 'inside the delegation')
      const steps = spans.filter((s) => s.spanType === 'model_generation')
      assert.equal(steps.length, 2, "the supervisor's two model calls")
      for (const step of steps) assert.equal(step.parentSpanId, root.spanId)
      // Children lie within the root in time.
      for (const span of spans) {
        assert.ok(+new Date(span.startedAt) >= +new Date(root.startedAt), span.name)
        assert.ok(+new Date(span.endedAt!) <= +new Date(root.endedAt!) + 5, span.name)
      }
      // The delegation's prompt is stored, but not the credential-shaped text in it.
      assert.match(String(delegation.input), /look up/)
      assert.doesNotMatch(JSON.stringify(spans), /sk-canary/)
    })

    test('usage per agent stays apart when supervisor and specialist share one model', async () => {
      const { metadata } = await turn()
      assert.deepEqual(metadata.usageByAgent, {
        orchistrator: { model: TRACE_MODEL, inputTokens: 500, outputTokens: 50 },
        researcher: { model: TRACE_MODEL, inputTokens: 18, outputTokens: 7 },
      })
      const { storage } = stack.host().resources.observability
      const breakdown = await storage.getMetricBreakdown({
        name: [INPUT_TOKENS_METRIC],
        groupBy: ['entityId'],
        aggregation: 'sum',
        filters: { traceId: metadata.traceId },
      })
      const byAgent = Object.fromEntries(
        breakdown.groups.map((g) => [g.dimensions.entityId, g.value]),
      )
      assert.deepEqual(byAgent, { orchistrator: 500, researcher: 18 })
      const output = await storage.getMetricAggregate({
        name: [OUTPUT_TOKENS_METRIC],
        aggregation: 'sum',
        filters: { traceId: metadata.traceId },
      })
      assert.equal(output.value, 57)
    })

    test('nothing of observability is stored in the application database', async () => {
      const tables = await stack.applicationTables()
      assert.ok(tables.length > 0)
      assert.deepEqual(
        tables.filter((t) => t.startsWith('mastra_') && t.endsWith('_events')),
        [],
      )
    })
  })
}
