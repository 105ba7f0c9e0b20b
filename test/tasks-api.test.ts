/**
 * Background tasks end to end: created through the edge, claimed by the compute host's runner,
 * executed by the agents on the scripted gateway (the same run preparation as chat), with the
 * transcript, cancellation of running work, failure with its remediation, operator resolution,
 * deletion rules and the operator CLI verbs.
 */
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { json } from './support/app.ts'
import { runCli } from './support/process.ts'
import type { RecordedRequest } from './support/scripted-gateway.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { until } from './support/until.ts'
import { errorJson, okJson, typedClient } from './support/typed-client.ts'
import { enqueue } from '../runtime/tasks/index.ts'

const HOST_TOKEN = 'stack-host-token-0123456789'

/** The task prompt a gateway request belongs to (its first user message). */
const promptOf = (r: RecordedRequest): string => {
  const user = (r.body?.messages ?? []).find((m: any) => m.role === 'user')
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '')
}
const toolResults = (r: RecordedRequest) =>
  (r.body?.messages ?? []).filter((m: any) => m.role === 'tool').length

describe('background tasks through the API', () => {
  let stack: TestStack
  let root: string
  // Untyped on purpose: the bad-input cases send bodies the contract refuses.
  const api = (path: string, init: RequestInit = {}) => stack.edge().request(path, init)
  const client = () => typedClient(stack.edge()).api
  const tasks = () => client().tasks
  const byId = (id: string) => tasks()[':id']
  const task = async (id: string) => okJson(await byId(id).$get({ param: { id } }), 200)
  const cancel = (id: string) => byId(id).cancel.$post({ param: { id } })
  const resolve = (id: string, evidence: string) =>
    byId(id).resolve.$post({ param: { id }, json: { evidence } })
  const remove = (id: string) => byId(id).$delete({ param: { id } })
  const listAll = async () => okJson(await tasks().$get({ query: { limit: '500' } }), 200)
  const create = async (prompt: string) =>
    okJson(await tasks().$post({ json: { workspaceId: 'wsp_default', prompt } }), 201)

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'popagent-tasks-'))
    await mkdir(join(root, 'proj'))
    stack = await startTestStack({
      models: [{ id: 'remote/a' }],
      hostEnv: { POPAGENT_WORKSPACE_ROOT: root },
    })
    const settings = await api(
      '/api/settings/agent-runtime',
      json({ configuredModel: 'remote/a', modelSource: 'configured' }, { method: 'PATCH' }),
    )
    assert.equal(settings.status, 200, await settings.text())
    stack.gateway.respondWith((r) => {
      const prompt = promptOf(r)
      if (prompt.includes('delegate please')) {
        const tools = (r.body.tools ?? []).map((t: any) => t.function.name)
        if (tools.includes('agent-researcher') && toolResults(r) === 0) {
          return { toolCalls: [{ name: 'agent-researcher', arguments: { prompt: 'look' } }] }
        }
        return { text: tools.includes('agent-researcher') ? `all done ${HOST_TOKEN}` : 'found it' }
      }
      if (prompt.includes('take your time')) return { text: 'late', delayMs: 20_000 }
      if (prompt.includes('break please')) return { status: 400, message: 'scripted refusal' }
      return { text: 'ok' }
    })
  })
  after(async () => {
    await stack.stop()
    await rm(root, { recursive: true, force: true })
  })

  test('a task runs through the agents and keeps a redacted transcript', async () => {
    const created = await create('delegate please')
    assert.equal(created.state, 'queued')
    assert.equal(created.source, 'user')
    await until(async () => (await task(created.id)).state === 'completed', 20_000, 'completed')
    const done = await task(created.id)
    assert.equal(done.attemptCount, 1)
    assert.ok(done.result !== null, 'a completed task has a result')
    assert.match(done.result, /all done/)
    assert.ok(!done.result.includes(HOST_TOKEN), 'the result is redacted')
    const workflow = await okJson(
      await byId(created.id).workflow.$get({ param: { id: created.id } }),
      200,
    )
    const kinds = workflow.activity.map((a) => a.record.kind)
    assert.ok(kinds.includes('delegation'), kinds.join(','))
    assert.ok(kinds.includes('step'), kinds.join(','))
    // The contract leaves a record's fields open; these are the ones a step record carries.
    type StepRecord = { toolCalls: { tool: string }[]; finishReason: string }
    const steps = workflow.activity
      .filter((a) => a.record.kind === 'step')
      .map((a) => a.record as StepRecord)
    assert.equal(steps[0]!.toolCalls[0]!.tool, 'agent-researcher')
    assert.equal(steps.at(-1)!.finishReason, 'stop')
    assert.ok(!JSON.stringify(workflow).includes(HOST_TOKEN), 'the transcript is redacted')
    assert.deepEqual(workflow.phases, [])
  })

  test('cancelling running work ends it cancelled; finished work cannot be cancelled', async () => {
    const created = await create('take your time')
    await until(async () => (await task(created.id)).state === 'running', 10_000, 'running')
    const cancelled = await okJson(await cancel(created.id), 200)
    assert.ok(['cancelling', 'cancelled'].includes(cancelled.state))
    await until(async () => (await task(created.id)).state === 'cancelled', 10_000, 'cancelled')
    await errorJson(await cancel(created.id), 409)
  })

  test('a failed task gets one remediation, and only failed work can be resolved', async () => {
    const created = await create('break please')
    await until(async () => (await task(created.id)).state === 'failed', 20_000, 'failed')
    const failed = await task(created.id)
    assert.equal(failed.attemptCount, 1, 'user work is not replayed')
    assert.ok(failed.lastErrorClass)
    const list = await okJson(await tasks().$get({ query: {} }), 200)
    const remediations = list.tasks.filter((t) => t.parentTaskId === created.id)
    assert.equal(remediations.length, 1)
    assert.equal(remediations[0]!.kind, 'remediation')

    const body = await okJson(await resolve(created.id, 'fixed by hand, see commit abc123'), 200)
    assert.equal(body.state, 'completed')
    assert.equal(body.resolutionEvidence, 'fixed by hand, see commit abc123')
    assert.equal(body.lastErrorClass, null)
    await errorJson(await resolve(created.id, 'again'), 409)
  })

  test('bad input is refused clearly and nothing is stored', async () => {
    const before = (await listAll()).tasks.length
    const cases: [RequestInit, number][] = [
      [json({ workspaceId: 'wsp_default', prompt: '' }, { method: 'POST' }), 400],
      [
        json(
          { workspaceId: 'wsp_default', prompt: 'x', source: 'self-update' },
          { method: 'POST' },
        ),
        400,
      ],
      [json({ workspaceId: 'wsp_default', prompt: 'x', maxAttempts: 0 }, { method: 'POST' }), 400],
      [
        json({ workspaceId: 'wsp_00000000000000000000000000', prompt: 'x' }, { method: 'POST' }),
        404,
      ],
      [json({ workspaceId: 'not-an-id', prompt: 'x' }, { method: 'POST' }), 400],
    ]
    for (const [init, status] of cases) {
      const res = await api('/api/tasks', init)
      assert.equal(res.status, status, `${init.body} → ${res.status} ${await res.text()}`)
    }
    const after = (await listAll()).tasks.length
    assert.equal(after, before)
    const missing = 'tsk_00000000000000000000000000'
    await errorJson(await byId(missing).$get({ param: { id: missing } }), 404)
    const wrongKind = 'ses_00000000000000000000000000'
    await errorJson(await byId(wrongKind).$get({ param: { id: wrongKind } }), 400)
  })

  test('only finished tasks can be deleted; a workspace with tasks cannot be removed', async () => {
    const workspaces = client().workspaces
    const made = await okJson(await workspaces.$post({ json: { name: 'proj', path: 'proj' } }), 201)
    const workspaceId = made.id
    const removeWorkspace = () => workspaces[':id'].$delete({ param: { id: workspaceId } })
    // Held back in the queue: a queued task is active work.
    const queued = await enqueue(stack.database.db, {
      source: 'user',
      workspaceId,
      title: 'later',
      prompt: 'ok later',
      nextAttemptAt: new Date(Date.now() + 3_600_000),
    })
    await errorJson(await remove(queued.id), 409)
    const inUse = await errorJson(await removeWorkspace(), 409)
    assert.match(inUse.error.message, /tasks or schedules/)
    await okJson(await cancel(queued.id), 200)
    assert.deepEqual(await okJson(await remove(queued.id), 200), { deleted: queued.id })
    await errorJson(await remove(queued.id), 404)
    assert.deepEqual(await okJson(await removeWorkspace(), 200), { deleted: workspaceId })
  })

  test('the CLI lists, shows and resolves tasks', async () => {
    const url = await stack.listen()
    const created = await create('break please')
    await until(async () => (await task(created.id)).state === 'failed', 20_000, 'failed')
    const env = { POPAGENT_URL: url }
    const listed = runCli(['tasks'], env)
    assert.equal(await listed.exited, 0, listed.output())
    assert.match(listed.output(), new RegExp(`${created.id}\\s+failed\\s+1/3`))
    const shown = runCli(['task', created.id], env)
    assert.equal(await shown.exited, 0, shown.output())
    assert.match(shown.output(), /prompt:\n {2}break please/)
    assert.match(shown.output(), /last error: \[/)
    const missing = runCli(['task-resolve', created.id], env)
    assert.equal(await missing.exited, 2, 'usage error without --evidence')
    const resolved = runCli(
      ['task-resolve', created.id, '--evidence', 'checked', 'by', 'hand'],
      env,
    )
    assert.equal(await resolved.exited, 0, resolved.output())
    assert.match(resolved.output(), /is now completed/)
    assert.equal((await task(created.id)).resolutionEvidence, 'checked by hand')
    const refused = runCli(['task-resolve', created.id, '--evidence', 'again'], env)
    assert.equal(await refused.exited, 1)
    assert.match(refused.output(), /only failed, cancelled or dead-lettered/)
  })
})
