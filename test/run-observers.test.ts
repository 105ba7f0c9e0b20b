/**
 * One run path: a chat turn and a task report the same run events to an observer the host has
 * registered, in the same order, and the production observers (the run and task lifecycle log)
 * are registered in a host started the way an owner starts it. Real stack, scripted gateway.
 */
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { RunEvent } from '../compute-host/runs/run-events.ts'
import type { AssistantMetadata } from '../runtime/contracts/chat.ts'
import { markRoles, postChat, roleOf } from './support/chat.ts'
import { startCli } from './support/process.ts'
import { startScriptedGateway, type RecordedRequest } from './support/scripted-gateway.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient } from './support/typed-client.ts'
import { readUiStream } from './support/ui-stream.ts'
import { until, waitFor } from './support/until.ts'

let stack: TestStack
let url: string
const events: RunEvent[] = []

/** The supervisor delegates once to the researcher, then answers. */
function delegateThenAnswer(r: RecordedRequest) {
  const messages: Array<{ role?: string }> = r.body?.messages ?? []
  if (roleOf(r) === 'researcher') return { text: 'the research' }
  return messages.some((m) => m.role === 'tool')
    ? { text: 'done' }
    : { toolCalls: [{ name: 'agent-researcher', arguments: { prompt: 'look into it' } }] }
}

before(async () => {
  stack = await startTestStack({ models: [{ id: 'remote/a' }] })
  url = await stack.listen()
  await markRoles(stack, ['orchistrator', 'researcher'])
  stack.gateway.respondWith(delegateThenAnswer)
  stack.host.resources.observers.addRunObserver((event) => void events.push(event))
})
after(() => stack.stop())

/** What an observer can compare across drivers: the event kinds and which agent each is about. */
const shape = (run: RunEvent[]) =>
  run.map((e) => ('agentId' in e ? `${e.type}:${e.agentId}` : e.type)).join(' ')

test('a chat turn and a task report the same run events through one observer', async () => {
  const api = typedClient(stack.edge()).api
  const sessionId = (await okJson(await api.sessions.$post({ json: {} }))).id
  const chunks = await readUiStream(
    await postChat(url, { sessionId, model: 'remote/a', text: 'go' }),
  )
  const metadata = chunks.findLast((c) => c.type === 'message-metadata')
    ?.messageMetadata as AssistantMetadata

  const created = await api.tasks.$post({
    json: { prompt: 'go', model: 'remote/a', workspaceId: 'wsp_default' },
  })
  const taskId = (await okJson(created, 201)).id
  await until(() => events.some((e) => e.type === 'run-end' && e.run.taskId === taskId), 20_000)

  const chat = events.filter((e) => e.run.kind === 'chat')
  const task = events.filter((e) => e.run.taskId === taskId)
  assert.equal(
    shape(chat),
    'run-start delegation-start:researcher delegation-end:researcher step:orchistrator step:orchistrator run-end',
  )
  assert.equal(shape(task), shape(chat), 'the task run reports what the chat run reports')

  // Each run's events name one run; the chat's is the trace its message reports.
  assert.equal(new Set(chat.map((e) => e.run.runId)).size, 1)
  assert.equal(chat[0]!.run.traceId, metadata.traceId)
  assert.equal(chat[0]!.run.runId, metadata.turnId)
  assert.equal(chat[0]!.run.sessionId, sessionId)
  assert.equal(task[0]!.run.attempt, 1)
  for (const run of [chat, task]) {
    const end = run.at(-1)
    assert.ok(end?.type === 'run-end' && end.status === 'completed', JSON.stringify(end))
  }
})

test('an observer that throws is logged and the run goes on', async () => {
  const remove = stack.host.resources.observers.addRunObserver(() => {
    throw new Error('observer broke')
  })
  try {
    const api = typedClient(stack.edge()).api
    const sessionId = (await okJson(await api.sessions.$post({ json: {} }))).id
    const chunks = await readUiStream(
      await postChat(url, { sessionId, model: 'remote/a', text: 'go' }),
    )
    assert.ok(chunks.some((c) => c.type === 'text-delta' && c.delta === 'done'))
    assert.ok(stack.logs.some((l) => l.message === 'run observer failed'))
  } finally {
    remove()
  }
})

test('a started popagent logs every run and task lifecycle through its registered observers', async () => {
  const gateway = await startScriptedGateway({ models: [{ id: 'remote/a' }] })
  gateway.respondWith(() => ({ text: 'finished' }))
  const dataDir = await mkdtemp(join(tmpdir(), 'popagent-observers-'))
  const workspaceRoot = await mkdtemp(join(tmpdir(), 'popagent-observers-ws-'))
  await mkdir(join(workspaceRoot, 'popagent'))
  const apiKey = 'observers-api-key-0123456789abcdef'
  const cli = await startCli(['start'], {
    POPAGENT_DATA_DIR: dataDir,
    POPAGENT_WORKSPACE_ROOT: workspaceRoot,
    POPAGENT_API_KEY: apiKey,
    PORT: '0',
    NINEROUTER_URL: gateway.url,
  })
  try {
    const api = typedClient(cli.url, { apiKey }).api
    const created = await api.tasks.$post({
      json: { prompt: 'go', model: 'remote/a', workspaceId: 'wsp_default' },
    })
    const taskId = (await okJson(created, 201)).id
    const lines = () =>
      cli
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{') && l.includes(taskId))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    const stopped = await waitFor(
      () => lines().find((l) => l.message === 'task stopped'),
      30_000,
      'the task lifecycle log line',
    )
    assert.equal(stopped.outcome, 'completed')
    const started = lines().find((l) => l.message === 'task started')
    const runEnded = lines().find((l) => l.message === 'run ended')
    assert.ok(started && runEnded, cli.output())
    assert.equal(runEnded.status, 'completed')
    assert.equal(runEnded.traceId, stopped.traceId, 'the run and the attempt share one trace')
    assert.equal(started.traceId, stopped.traceId)
  } finally {
    await cli.stop()
    await gateway.close()
    await rm(dataDir, { recursive: true, force: true })
    await rm(workspaceRoot, { recursive: true, force: true })
  }
})
