/**
 * The run path's small parts on their own: tool hooks composed in order (a refusal stops the
 * later ones) and run events turned into spans.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Span, SpanStatus, Tracer } from '../compute-host/observability/tracer.ts'
import type { RunEvent, RunRef } from '../compute-host/runs/run-events.ts'
import { composeToolHooks } from '../compute-host/runs/tool-hooks.ts'
import { tracingObserver } from '../compute-host/runs/tracing-observer.ts'

const agent = { id: 'researcher', name: 'Researcher' }
const call = { toolName: 'read', input: { path: 'a' }, context: {} }

test('tool hooks run in list order, and a refusal skips the hooks after it', async () => {
  const seen: string[] = []
  const hook =
    (name: string, refuse = false) =>
    () => ({
      beforeToolCall: () => {
        seen.push(`before:${name}`)
        return refuse ? { proceed: false as const, output: `refused by ${name}` } : undefined
      },
      afterToolCall: () => void seen.push(`after:${name}`),
    })
  const allowed = composeToolHooks([hook('a'), hook('b')])(agent)
  assert.equal(await allowed.beforeToolCall?.(call), undefined)
  await allowed.afterToolCall?.({ ...call, output: 'x' })
  assert.deepEqual(seen, ['before:a', 'before:b', 'after:a', 'after:b'])

  seen.length = 0
  const refused = composeToolHooks([hook('a', true), hook('b')])(agent)
  assert.deepEqual(await refused.beforeToolCall?.(call), {
    proceed: false,
    output: 'refused by a',
  })
  assert.deepEqual(seen, ['before:a'])
})

test('run events become one root span per run with a child per call, all ended', () => {
  const ended: Array<{ name: string; status: SpanStatus | undefined }> = []
  const roots: Array<{ name: string; traceId: unknown }> = []
  const span = (name: string): Span => ({
    child: (child) => span(child),
    end: (status) => void ended.push({ name, status }),
  })
  const tracer: Tracer = {
    startSpan: (name, attributes) => {
      roots.push({ name, traceId: attributes?.traceId })
      return span(name)
    },
  }
  const run: RunRef = { kind: 'task', runId: 'turn_1', traceId: 'a'.repeat(32), workspaceId: 'w' }
  const who = { agentId: 'orchistrator', agentName: 'Orchestrator' }
  const observe = tracingObserver(tracer)
  const events: RunEvent[] = [
    {
      type: 'run-start',
      run,
      model: 'remote/a',
      request: 'read it',
      preparation: { startedAt: 0, phases: {} },
    },
    { type: 'tool-start', run, callId: 'c1', tool: 'read', input: {}, ...who },
    { type: 'tool-end', run, callId: 'c1', tool: 'read', error: new Error('no'), ...who },
    { type: 'delegation-start', run, callId: 'c2', prompt: 'p', ...who },
    { type: 'run-end', run, status: 'aborted' },
  ]
  for (const event of events) void observe(event)
  assert.deepEqual(roots, [{ name: 'task', traceId: run.traceId }])
  assert.deepEqual(ended, [
    { name: 'tool read', status: 'error' },
    { name: 'agent Orchestrator', status: 'aborted' },
    { name: 'task', status: 'aborted' },
  ])
})
