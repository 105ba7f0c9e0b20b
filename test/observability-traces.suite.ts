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
import { SpanType } from '@mastra/core/observability'
import { sql } from '../db/drizzle-orm.ts'
import { runRetention } from '../compute-host/observability/retention.ts'
import type { z } from 'zod'
import { AssistantMetadata } from '../runtime/contracts/chat.ts'
import {
  FeedbackList,
  LogLines,
  ModelPrices,
  ObservabilityHealth,
  RetentionReport,
  TraceDetail,
  TraceList,
  UsageReport,
} from '../runtime/contracts/observability.ts'
import { json } from './support/app.ts'
import { roleOf, toolResultsOf, userMessage } from './support/chat.ts'
import type { RecordedRequest, ScriptedGateway } from './support/scripted-gateway.ts'
import { readUiStream } from './support/ui-stream.ts'
import { until } from './support/until.ts'

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

    async function turn(requestId?: string) {
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
          { method: 'POST', ...(requestId && { headers: { 'x-request-id': requestId } }) },
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

    test("a task's attempts are each a trace, under the ids the task reports", async () => {
      const host = stack.host()
      const stops: Array<{ traceId: string; attempt: number; outcome: string }> = []
      let outage = true
      const remove = host.resources.observers.addTaskObserver((event) => {
        if (event.type !== 'TaskStop') return
        stops.push({ traceId: event.traceId, attempt: event.attempt, outcome: event.outcome })
        if (event.willRetry) outage = false
      })
      stack.gateway.respondWith(() =>
        outage ? { status: 503, message: 'gateway away' } : { text: 'task finished' },
      )
      try {
        const res = await stack.request(
          '/api/tasks',
          json({ workspaceId: 'wsp_default', prompt: 'trace this task' }, { method: 'POST' }),
        )
        assert.equal(res.status, 201, await res.clone().text())
        const taskId = ((await res.json()) as { id: string }).id
        await until(() => stops.some((s) => s.outcome === 'completed'), 60_000, 'completed')
        await host.resources.observability.queue.flush()
        assert.deepEqual(
          stops.map((s) => [s.attempt, s.outcome]),
          [
            [1, 'failed'],
            [2, 'completed'],
          ],
        )
        const row = (await (await stack.request(`/api/tasks/${taskId}`)).json()) as {
          traceId: string
        }
        assert.equal(row.traceId, stops[1]!.traceId, 'the task reports its last trace')
        assert.notEqual(stops[0]!.traceId, stops[1]!.traceId)
        for (const [i, stop] of stops.entries()) {
          const trace = await host.resources.observability.storage.getTrace({
            traceId: stop.traceId,
          })
          assert.ok(trace, `attempt ${stop.attempt} has a trace`)
          const root = trace.spans.find((s) => !s.parentSpanId)
          assert.equal(root?.name, 'task')
          assert.equal(root?.attributes?.taskId, taskId)
          assert.equal(root?.attributes?.attempt, stop.attempt)
          assert.equal(root?.error ? 'failed' : 'completed', i === 0 ? 'failed' : 'completed')
        }
        // The task's usage: only the completed attempt reached the model (the scripted default
        // usage is 10 tokens in per call).
        const usage = UsageReport.parse(
          await (
            await stack.request(`/api/observability/usage?groupBy=task&taskId=${taskId}`)
          ).json(),
        )
        // (The task runs on the settings' default model, whatever route that names.)
        assert.deepEqual(
          usage.rows.map((r) => [r.key, r.inputTokens]),
          [[taskId, 10]],
        )
      } finally {
        remove()
        stack.gateway.respondWith(undefined)
      }
    })

    test("a turn's log lines are found by its trace id and by the edge's request id", async () => {
      const requestId = `req-${Date.now()}`
      const { metadata } = await turn(requestId)
      const { storage } = stack.host().resources.observability
      const root = (await storage.getTrace({ traceId: metadata.traceId }))?.spans.find(
        (s) => !s.parentSpanId,
      )
      assert.equal(root?.requestId, requestId, 'the trace names the request that started it')
      const byTrace = await storage.listLogs({ filters: { traceId: metadata.traceId } })
      const messages = byTrace.logs.map((l) => l.message)
      assert.ok(messages.includes('run started') && messages.includes('run ended'), `${messages}`)
      // The stack's default workspace has no checkout: the run's own warning joins its trace.
      assert.ok(messages.includes('workspace directory unavailable for this run'), `${messages}`)
      const byRequest = await storage.listLogs({ filters: { requestId } })
      assert.ok(byRequest.logs.length >= 2, 'the same lines by request id')
      for (const line of byRequest.logs) assert.equal(line.traceId, metadata.traceId, line.message)
    })

    test('the API totals usage and cost per session and agent, from an owner-set price', async () => {
      const { sessionId, metadata } = await turn()
      const get = async <T>(path: string, schema: z.ZodType<T>) => {
        const res = await stack.request(path)
        assert.equal(res.status, 200, await res.clone().text())
        return schema.parse(await res.json())
      }
      // Unpriced: tokens only.
      const unpriced = await get(
        `/api/observability/usage?groupBy=session&sessionId=${sessionId}`,
        UsageReport,
      )
      assert.deepEqual(unpriced.rows, [
        {
          key: sessionId,
          model: TRACE_MODEL,
          inputTokens: 518,
          outputTokens: 57,
          cachedInputTokens: 0,
          costUsd: null,
        },
      ])
      assert.deepEqual(unpriced.totals.unpricedModels, [TRACE_MODEL])
      const price = await stack.request(
        '/api/observability/prices',
        json(
          {
            model: TRACE_MODEL,
            inputUsdPerMtok: 3,
            outputUsdPerMtok: 15,
            cacheReadUsdPerMtok: 0.3,
            effectiveFrom: new Date(Date.now() - 60_000).toISOString(),
          },
          { method: 'PUT' },
        ),
      )
      assert.equal(price.status, 200, await price.clone().text())
      const bySession = await get(
        `/api/observability/usage?groupBy=session&sessionId=${sessionId}`,
        UsageReport,
      )
      // 518 in at $3/Mtok, 57 out at $15/Mtok.
      assert.equal(bySession.totals.costUsd, 0.002409)
      const byAgent = await get(
        `/api/observability/usage?groupBy=agent&traceId=${metadata.traceId}`,
        UsageReport,
      )
      assert.deepEqual(
        byAgent.rows.map((r) => [r.key, r.inputTokens, r.outputTokens, r.costUsd]),
        [
          ['orchistrator', 500, 50, 0.00225],
          ['researcher', 18, 7, 0.000159],
        ],
      )
      const byDay = await get(
        `/api/observability/usage?groupBy=day&sessionId=${sessionId}`,
        UsageReport,
      )
      assert.equal(byDay.rows.length, 1)
      assert.equal(byDay.rows[0]!.key, new Date().toISOString().slice(0, 10))
      assert.equal(byDay.rows[0]!.inputTokens, 518)
      const prices = await get('/api/observability/prices', ModelPrices)
      assert.equal(prices.prices[0]!.model, TRACE_MODEL)
    })

    test('traces, one trace, logs, feedback and health through the API', async () => {
      const { sessionId, metadata } = await turn()
      const list = TraceList.parse(
        await (await stack.request(`/api/observability/traces?sessionId=${sessionId}`)).json(),
      )
      assert.deepEqual(
        list.traces.map((t) => [t.traceId, t.name, t.status]),
        [[metadata.traceId, 'turn', 'ok']],
      )
      const byAgent = TraceList.parse(
        await (
          await stack.request('/api/observability/traces?agentId=researcher&limit=200')
        ).json(),
      )
      assert.ok(byAgent.traces.some((t) => t.traceId === metadata.traceId))
      const trace = TraceDetail.parse(
        await (await stack.request(`/api/observability/traces/${metadata.traceId}`)).json(),
      )
      assert.equal(trace.spans[0]?.name, 'turn')
      const tool = trace.spans.find((s) => s.type === 'tool_call')
      assert.match(String(tool?.input), /popagent tracing/)
      const missing = await stack.request(`/api/observability/traces/${'f'.repeat(32)}`)
      assert.equal(missing.status, 404)
      const bad = await stack.request('/api/observability/traces/not-a-trace')
      assert.equal(bad.status, 400)
      const logs = LogLines.parse(
        await (await stack.request(`/api/observability/logs?traceId=${metadata.traceId}`)).json(),
      )
      assert.ok(logs.logs.some((l) => l.message === 'run ended'))
      const sent = await stack.request(
        '/api/observability/feedback',
        json(
          { traceId: metadata.traceId, value: 'down', comment: `wrong ${CANARY}`, sessionId },
          { method: 'POST' },
        ),
      )
      assert.equal(sent.status, 201, await sent.clone().text())
      const feedback = FeedbackList.parse(
        await (await stack.request('/api/observability/feedback')).json(),
      )
      const mine = feedback.feedback.find((f) => f.traceId === metadata.traceId)
      assert.equal(mine?.value, 'down')
      assert.equal(mine?.sessionId, sessionId)
      assert.match(String(mine?.comment), /^wrong /)
      assert.doesNotMatch(String(mine?.comment), /sk-canary/)
      const health = ObservabilityHealth.parse(
        await (await stack.request('/api/observability/health')).json(),
      )
      assert.equal(health.storageReady, true)
      assert.ok(health.written > 0)
    })

    test('retention: a shortened setting drops a filled past day, keeps today, and is recorded', async () => {
      const host = stack.host()
      const { storage } = host.resources.observability
      const db = host.resources.databases.observability.db
      // A day partition five days back holding one span (Mastra keeps only yesterday on).
      const day = new Date(Date.now() - 5 * 86_400_000)
      const ymd = day.toISOString().slice(0, 10)
      const next = new Date(Date.parse(ymd) + 86_400_000).toISOString().slice(0, 10)
      await db.execute(
        sql.raw(
          `create table mastra_span_events_p${ymd.replaceAll('-', '')} partition of mastra_span_events for values from ('${ymd} 00:00:00+00') to ('${next} 00:00:00+00')`,
        ),
      )
      const oldTrace = 'e'.repeat(32)
      await storage.batchCreateSpans({
        records: [
          {
            traceId: oldTrace,
            spanId: 'e'.repeat(16),
            name: 'turn',
            spanType: SpanType.GENERIC,
            isEvent: false,
            startedAt: day,
            endedAt: new Date(day.getTime() + 1_000),
          },
        ],
      })
      assert.ok(await storage.getTrace({ traceId: oldTrace }), 'the old span is stored')
      const { metadata } = await turn()
      const res = await stack.request(
        '/api/observability/retention',
        json({ spanDays: 2 }, { method: 'PUT' }),
      )
      assert.equal(res.status, 200, await res.clone().text())
      const tooShort = await stack.request(
        '/api/observability/retention',
        json({ spanDays: 1 }, { method: 'PUT' }),
      )
      assert.equal(tooShort.status, 400)
      const { partitionsDropped } = await runRetention({
        storage,
        db,
        trigger: 'daily',
        redact: (t) => t,
      })
      assert.equal(partitionsDropped, 1)
      assert.equal(await storage.getTrace({ traceId: oldTrace }), null, 'the old day is gone')
      assert.ok(await storage.getTrace({ traceId: metadata.traceId }), "today's trace is kept")
      const report = RetentionReport.parse(
        await (await stack.request('/api/observability/retention')).json(),
      )
      assert.equal(report.settings.spanDays, 2)
      assert.equal(report.settings.logDays, 14)
      assert.equal(report.lastRun?.outcome, 'succeeded')
      assert.equal(report.lastRun?.partitionsDropped, 1)
      assert.ok(Date.parse(String(report.nextRunAt)) > Date.now())
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
