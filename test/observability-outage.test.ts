/**
 * The observability database going away under load (X7): turns and tasks go on and none fails
 * because of it; the spans written meanwhile are dropped and counted, with a warning; once the
 * database is back, traces are stored again without a restart of the host.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { AssistantMetadata } from '../runtime/contracts/chat.ts'
import { json } from './support/app.ts'
import { userMessage } from './support/chat.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { startThrowawayPostgres, type ThrowawayPostgres } from './support/throwaway-postgres.ts'
import { readUiStream } from './support/ui-stream.ts'
import { until } from './support/until.ts'

const MODEL = 'remote/outage'
let observabilityServer: ThrowawayPostgres
let stack: TestStack

before(async () => {
  observabilityServer = await startThrowawayPostgres()
  stack = await startTestStack({
    models: [{ id: MODEL }],
    hostEnv: { OBSERVABILITY_DATABASE_URL: observabilityServer.url },
  })
  await stack.host.resources.observability.initialised
  // Every answer streams for a while, so turns are in flight when the database stops.
  stack.gateway.respondWith(() => ({
    text: ['still ', 'here ', 'and ', 'answering'],
    chunkDelayMs: 150,
  }))
})
after(async () => {
  await stack?.stop()
  await observabilityServer?.stop()
})

async function turn() {
  const api = (path: string, body: unknown) =>
    stack.edge().request(path, json(body, { method: 'POST' }))
  const sessionId = ((await (await api('/api/sessions', {})).json()) as { id: string }).id
  const res = await api('/api/chat', {
    sessionId,
    workspaceId: 'wsp_default',
    model: MODEL,
    message: userMessage('go'),
  })
  const chunks = await readUiStream(res)
  const metadata = AssistantMetadata.parse(
    chunks.filter((c) => c.type === 'message-metadata').at(-1)?.messageMetadata,
  )
  const text = chunks
    .filter((c) => c.type === 'text-delta')
    .map((c) => c.delta)
    .join('')
  return { metadata, text }
}

test('turns and tasks go on while the observability database is stopped mid-load', async () => {
  const obs = stack.host.resources.observability
  assert.equal(obs.health().storageReady, true)
  const load = async (n: number) => {
    const results = []
    for (let i = 0; i < n; i++) results.push(await turn())
    return results
  }
  // Two clients, four turns each; the database stops for four seconds after the first second.
  const outage = (async () => {
    await new Promise((r) => setTimeout(r, 1_000))
    await observabilityServer.restart({ downMs: 4_000 })
  })()
  const taskRes = await stack
    .edge()
    .request(
      '/api/tasks',
      json({ workspaceId: 'wsp_default', prompt: 'run through the outage' }, { method: 'POST' }),
    )
  assert.equal(taskRes.status, 201)
  const taskId = ((await taskRes.json()) as { id: string }).id
  const [a, b] = await Promise.all([load(4), load(4), outage])
  const turns = [...a!, ...b!]
  for (const t of turns) {
    assert.equal(t.metadata.error, undefined, t.metadata.error)
    assert.equal(t.text, 'still here and answering')
    assert.ok(t.metadata.savedRevision, 'the turn was saved')
  }
  await until(
    async () =>
      ((await (await stack.edge().request(`/api/tasks/${taskId}`)).json()) as { state: string })
        .state === 'completed',
    30_000,
    'the task completed',
  )
  await obs.queue.flush()
  const health = obs.health()
  assert.ok(health.dropped > 0, 'spans written during the outage were dropped and counted')
  assert.ok(
    stack.logs.some((l) => l.message === 'observability records dropped'),
    'with a warning',
  )
  // Back up: the next turn's trace is stored, by the same host.
  const later = await turn()
  await until(
    async () => {
      await obs.queue.flush()
      return (await obs.storage.getTrace({ traceId: later.metadata.traceId })) !== null
    },
    20_000,
    'a trace stored after the outage',
  )
})
