/**
 * Guard rails of a run (B1): a scripted endless tool loop stops at the tool-call budget or the
 * token budget with one tool-free answering step; a call that keeps failing the same way is not
 * run again past the loop limit; the same delegation is not repeated past it. Real stack,
 * scripted gateway; what ran is counted from the run events.
 */
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeEach, test } from 'node:test'
import type { RunEvent } from '../compute-host/runs/run-events.ts'
import { AssistantMetadata } from '../runtime/contracts/chat.ts'
import type { AgentRuntimeSettingsPatch } from '../runtime/contracts/settings.ts'
import { messagesOf, roleOf } from './support/chat.ts'
import { observedChatStack } from './support/observed-chat.ts'
import type { RecordedRequest } from './support/scripted-gateway.ts'
import { okJson, typedClient } from './support/typed-client.ts'

const chat = observedChatStack()
beforeEach(() => chat.clearEvents())

async function settings(patch: AgentRuntimeSettingsPatch) {
  const api = typedClient(chat.stack.edge()).api
  await okJson(await api.settings['agent-runtime'].$patch({ json: patch }), 200)
}

/** One chat turn; its streamed text, final metadata, saved session and the events of its run. */
async function turn(text = 'go') {
  const { sessionId, metadata, answer } = await chat.turn(text)
  const api = typedClient(chat.stack.edge()).api
  const session = await okJson(await api.sessions[':id'].$get({ param: { id: sessionId } }), 200)
  return { metadata, answer, session, events: [...chat.events] }
}

// The answering step is sent without tools (tool choice `none`).
const toolsOffered = (r: RecordedRequest) => (r.body?.tools ?? []).length > 0
const count = (list: RunEvent[], type: RunEvent['type'], tool?: string) =>
  list.filter((e) => e.type === type && (!tool || ('tool' in e && e.tool === tool))).length

test('an endless tool loop stops at the tool-call budget, and the model answers without tools', async () => {
  await settings({ budgetToolCalls: 4, loopRepeatLimit: 20, supervisorMaxSteps: 100 })
  let n = 0
  chat.stack.gateway.respondWith((r) =>
    toolsOffered(r)
      ? { toolCalls: [{ name: 'repo-brief', arguments: { query: `q${++n}` } }] }
      : { text: 'stopped by the budget' },
  )
  const { metadata, answer, session, events } = await turn()
  assert.equal(count(events, 'tool-start'), 4, 'exactly the budget of tool calls ran')
  assert.equal(metadata.budget?.exhausted, 'toolCalls')
  assert.equal(metadata.budget?.used.toolCalls, 4)
  assert.equal(answer, 'stopped by the budget')
  const saved = AssistantMetadata.parse(session.messages.at(-1)?.metadata)
  assert.equal(saved.budget?.exhausted, 'toolCalls', 'the session keeps the budget marker')
})

test('a model that asks for tools on its answering step anyway still stops there', async () => {
  await settings({ budgetToolCalls: 3, loopRepeatLimit: 20, supervisorMaxSteps: 100 })
  let n = 0
  chat.stack.gateway.respondWith(() => ({
    toolCalls: [{ name: 'repo-brief', arguments: { query: `q${++n}` } }],
  }))
  const before = chat.stack.gateway.requests.length
  const { metadata, events } = await turn()
  assert.equal(count(events, 'tool-start'), 3)
  assert.equal(metadata.budget?.exhausted, 'toolCalls')
  // Three tool steps, then one answering step: no endless run.
  assert.ok(chat.stack.gateway.requests.length - before <= 5, 'the run kept calling the model')
})

test('an endless loop stops at the token budget within 5 %', async () => {
  await settings({
    budgetToolCalls: 10_000,
    budgetInputTokens: 20_000,
    loopRepeatLimit: 20,
    supervisorMaxSteps: 200,
  })
  let n = 0
  chat.stack.gateway.respondWith((r) =>
    toolsOffered(r)
      ? {
          toolCalls: [{ name: 'repo-brief', arguments: { query: `q${++n}` } }],
          usage: { promptTokens: 500, completionTokens: 10 },
        }
      : { text: 'done', usage: { promptTokens: 500, completionTokens: 5 } },
  )
  const { metadata, answer } = await turn()
  assert.equal(metadata.budget?.exhausted, 'inputTokens')
  const used = metadata.budget!.used.inputTokens
  assert.ok(used >= 20_000 && used <= 21_000, `input tokens used ${used}`)
  assert.equal(answer, 'done')
})

test('a call failing the same way is not run again past the loop limit', async () => {
  await settings({ budgetToolCalls: 50, budgetInputTokens: 2_000_000, loopRepeatLimit: 3 })
  chat.stack.gateway.respondWith((r) => {
    const refused = JSON.stringify(messagesOf(r)).includes('will not be run again')
    return refused
      ? { text: 'gave up on that call' }
      : { toolCalls: [{ name: 'web-search', arguments: { query: 'the same thing' } }] }
  })
  const { answer, events } = await turn()
  assert.equal(count(events, 'tool-start', 'web-search'), 3, 'the failing call ran three times')
  const guards = events.filter((e) => e.type === 'guard')
  assert.equal(guards.length, 1)
  assert.equal(guards[0]?.type === 'guard' && guards[0].guard, 'loop')
  assert.equal(answer, 'gave up on that call')
})

test('the same delegation is not repeated past the loop limit', async () => {
  await settings({ budgetToolCalls: 50, loopRepeatLimit: 3 })
  chat.stack.gateway.respondWith((r) => {
    if (roleOf(r) === 'researcher') return { text: 'nothing new' }
    const refused = JSON.stringify(messagesOf(r)).includes('will not be made again')
    return refused
      ? { text: 'stopped delegating' }
      : { toolCalls: [{ name: 'agent-researcher', arguments: { prompt: 'look again' } }] }
  })
  const { answer, events } = await turn()
  assert.equal(count(events, 'delegation-start'), 3)
  assert.equal(count(events, 'guard'), 1)
  assert.equal(answer, 'stopped delegating')
})

/** The supervisor's model requests in one turn, and the last (its answering step). */
async function requestsOf(run: () => Promise<unknown>) {
  const before = chat.stack.gateway.requests.length
  await run()
  const requests = chat.stack.gateway.requests
    .slice(before)
    .filter((r) => roleOf(r) === 'orchistrator')
  return { count: requests.length, last: requests.at(-1)! }
}

/** The default workspace's repository, which the file tools need to be offered at all. */
function defaultRepository(): string {
  const repo = join(chat.stack.host.resources.workspaceRoot, 'popagent')
  mkdirSync(repo, { recursive: true })
  return repo
}

test('a model that keeps asking for a refused failing call gets a tool-free answering step at once', async () => {
  defaultRepository()
  await settings({ budgetToolCalls: 200, loopRepeatLimit: 3, supervisorMaxSteps: 24 })
  // The model ignores every refusal and asks again whenever it may call tools.
  chat.stack.gateway.respondWith((r) =>
    toolsOffered(r)
      ? { toolCalls: [{ name: 'workspace-read', arguments: { path: 'no/such/file.ts' } }] }
      : { text: 'stopped by the loop breaker' },
  )
  let answer = ''
  const { count: requests, last } = await requestsOf(async () => ({ answer } = await turn()))
  // Three failures, the refused fourth, then the answering step: five model requests.
  assert.ok(requests <= 6, `${requests} model requests`)
  assert.equal(toolsOffered(last), false, 'the last request offered no tools')
  assert.match(JSON.stringify(messagesOf(last)), /The loop breaker stopped you/)
  assert.equal(answer, 'stopped by the loop breaker')
})

test('the same call returning the same result again and again stops the same way', async () => {
  await settings({ budgetToolCalls: 200, loopRepeatLimit: 3, supervisorMaxSteps: 24 })
  chat.stack.gateway.respondWith((r) =>
    toolsOffered(r)
      ? { toolCalls: [{ name: 'repo-brief', arguments: { query: 'the same question' } }] }
      : { text: 'nothing new came back' },
  )
  let events: RunEvent[] = []
  const { count: requests, last } = await requestsOf(async () => ({ events } = await turn()))
  assert.equal(count(events, 'tool-start', 'repo-brief'), 3, 'it ran three times, then no more')
  assert.ok(requests <= 6, `${requests} model requests`)
  assert.equal(toolsOffered(last), false)
  assert.match(JSON.stringify(messagesOf(last)), /returned the same result 3 times in a row/)
})

test('a call whose result changes each time (a poll that sees progress) runs to its own end', async () => {
  await settings({ budgetToolCalls: 200, loopRepeatLimit: 3, supervisorMaxSteps: 24 })
  const file = join(defaultRepository(), 'build-status.txt')
  let polls = 0
  chat.stack.gateway.respondWith(() => {
    // The build moves on between polls; after eight it is done and the model answers.
    polls += 1
    writeFileSync(file, polls < 8 ? `building: step ${polls}\n` : 'done\n')
    return polls <= 8
      ? { toolCalls: [{ name: 'workspace-read', arguments: { path: 'build-status.txt' } }] }
      : { text: 'the build finished' }
  })
  const { answer, events } = await turn()
  assert.equal(count(events, 'tool-start', 'workspace-read'), 8, 'every poll ran')
  assert.equal(count(events, 'guard'), 0)
  assert.equal(answer, 'the build finished')
})

test('a second agent stopped by the loop breaker ends the run', async () => {
  defaultRepository()
  await settings({ budgetToolCalls: 200, loopRepeatLimit: 2, supervisorMaxSteps: 24 })
  let delegated = 0
  chat.stack.gateway.respondWith((r) => {
    const role = roleOf(r)
    const tools = toolsOffered(r)
    if (role === 'researcher') {
      return tools
        ? { toolCalls: [{ name: 'workspace-read', arguments: { path: 'missing.md' } }] }
        : { text: 'the researcher was stopped' }
    }
    // The supervisor keeps looping on its own failing call after each delegation comes back.
    if (!tools) return { text: 'the run was ended' }
    if (delegated < 1) {
      delegated += 1
      return { toolCalls: [{ name: 'agent-researcher', arguments: { prompt: 'read it' } }] }
    }
    return { toolCalls: [{ name: 'workspace-read', arguments: { path: 'gone.md' } }] }
  })
  const { answer, metadata, events } = await turn()
  const stopped = events.filter((e) => e.type === 'guard' && e.guard === 'loop')
  assert.deepEqual([...new Set(stopped.map((e) => (e.type === 'guard' ? e.agentId : '')))].sort(), [
    'orchistrator',
    'researcher',
  ])
  assert.match(metadata.budget?.loopStopped ?? '', /stopped researcher and orchistrator/)
  assert.equal(answer, 'the run was ended')
})
