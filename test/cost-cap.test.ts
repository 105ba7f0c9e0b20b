/**
 * The hard cost cap (issue 41, section 2): a chat turn and a task tree on a priced model stop
 * before the call that could pass their cap (overshoot 0), every call made is counted at the
 * price table's price, the cap is sent as each priced call's output bound, tasks start from the
 * lower unattended cap, and a model with no price is not stopped by the cap at all. Real stack,
 * scripted gateway (its reported usage), a price row through the API.
 */
import assert from 'node:assert/strict'
import { beforeEach, test } from 'node:test'
import type { RunEvent } from '../compute-host/runs/run-events.ts'
import { OUTPUT_RESERVE_TOKENS } from '../compute-host/runs/cost-cap.ts'
import { AssistantMetadata } from '../runtime/contracts/chat.ts'
import type { AgentRuntimeSettingsPatch } from '../runtime/contracts/settings.ts'
import { observedChatStack } from './support/observed-chat.ts'
import type { RecordedRequest } from './support/scripted-gateway.ts'
import { okJson, typedClient } from './support/typed-client.ts'
import { until } from './support/until.ts'

const chat = observedChatStack()
beforeEach(() => chat.clearEvents())
const api = () => typedClient(chat.stack.edge()).api

// $1 per million prompt tokens, $10 per million output tokens; each scripted call reports 1,000
// and 100: it costs $0.002, and its worst case before it is made is at least 8,192 × $10/M.
const PRICE = { model: 'remote/a', inputUsdPerMtok: 1, outputUsdPerMtok: 10 }
const USAGE = { promptTokens: 1_000, completionTokens: 100 }
const CALL_USD = 0.002

async function settings(patch: AgentRuntimeSettingsPatch) {
  await okJson(await api().settings['agent-runtime'].$patch({ json: patch }), 200)
}

const toolsOffered = (r: RecordedRequest) => (r.body?.tools ?? []).length > 0
const chatRequests = () =>
  chat.stack.gateway.requests.filter((r) => r.path.endsWith('/completions'))

/** A model that calls a tool forever, each call reporting the same usage. */
function endlessLoop() {
  let n = 0
  chat.stack.gateway.respondWith((r) =>
    toolsOffered(r)
      ? { toolCalls: [{ name: 'repo-brief', arguments: { query: `q${++n}` } }], usage: USAGE }
      : { text: 'answer', usage: USAGE },
  )
}

test('a model with no price is not stopped by the cost cap, and the budget says so', async () => {
  await settings({ budgetCostUsd: 0.01, loopRepeatLimit: 20, supervisorMaxSteps: 100 })
  chat.stack.gateway.enqueue(
    { toolCalls: [{ name: 'repo-brief', arguments: { query: 'a' } }], usage: USAGE },
    { toolCalls: [{ name: 'repo-brief', arguments: { query: 'b' } }], usage: USAGE },
    { text: 'done on an unpriced model', usage: USAGE },
  )
  const { metadata, answer, sessionId } = await chat.turn()
  assert.equal(answer, 'done on an unpriced model')
  // Its failed tool calls (no repository to brief) were answered by the model: no failed turn.
  const session = await okJson(await api().sessions[':id'].$get({ param: { id: sessionId } }), 200)
  assert.equal(AssistantMetadata.parse(session.messages.at(-1)?.metadata).error, undefined)
  assert.equal(metadata.budget?.exhausted, undefined)
  assert.equal(metadata.budget?.used.costUsd, 0)
  assert.deepEqual(metadata.budget?.unpricedModels, ['remote/a'])
})

test('a chat turn stops before the call that would pass its cost cap: overshoot 0', async () => {
  await okJson(await api().observability.prices.$put({ json: PRICE }), 200)
  const cap = 0.1
  await settings({ budgetCostUsd: cap, loopRepeatLimit: 20, supervisorMaxSteps: 100 })
  const before = chatRequests().length
  endlessLoop()
  const { metadata, sessionId } = await chat.turn()
  const made = chatRequests().slice(before)
  const budget = metadata.budget!
  assert.equal(budget.exhausted, 'costUsd')
  assert.equal(budget.limits.costUsd, cap)
  assert.ok(made.length >= 1, 'the calls the cap allowed were made')
  assert.ok(budget.used.costUsd! <= cap, `overshoot: ${budget.used.costUsd} of ${cap}`)
  // Every call made was priced and counted, at the price table's price.
  assert.equal(Math.round(budget.used.costUsd! * 1e6), Math.round(made.length * CALL_USD * 1e6))
  // The refused call could have passed the cap: at least its last reported prompt (1,000 tokens)
  // and its output bound (8,192 tokens) were reserved.
  assert.ok(budget.used.costUsd! + (1_000 * 1 + OUTPUT_RESERVE_TOKENS * 10) / 1e6 > cap)
  for (const r of made) assert.equal(r.body?.max_tokens, OUTPUT_RESERVE_TOKENS, 'the bound sent')
  const stop = chat.events.find(
    (e): e is Extract<RunEvent, { type: 'guard' }> => e.type === 'guard' && e.tool === 'model call',
  )
  assert.match(stop?.message ?? '', /cost cap of this run was reached/)
  assert.equal(budget.unpricedModels, undefined)
  // The turn is saved with the reason, as a stop, not as a failure.
  const session = await okJson(await api().sessions[':id'].$get({ param: { id: sessionId } }), 200)
  const saved = AssistantMetadata.parse(session.messages.at(-1)?.metadata)
  assert.equal(saved.budget?.exhausted, 'costUsd')
  assert.equal(saved.error, undefined, 'a stop by the cap is no failure')
})

test('a task tree starts from the lower unattended cap and stops before passing it', async () => {
  await okJson(await api().observability.prices.$put({ json: PRICE }), 200)
  await settings({ budgetCostUsd: 50, budgetUnattendedCostUsd: 0.1, supervisorMaxSteps: 100 })
  endlessLoop()
  const created = await okJson(
    await api().tasks.$post({
      json: { prompt: 'loop forever', model: 'remote/a', workspaceId: 'wsp_default' },
    }),
    201,
  )
  const read = async () =>
    okJson(await api().tasks[':id'].workflow.$get({ param: { id: created.id } }), 200)
  let workflow = await read()
  await until(async () => ((workflow = await read()), workflow.task.state === 'failed'), 30_000)
  assert.equal(workflow.task.lastErrorClass, 'budget-exhausted')
  assert.match(workflow.task.lastError ?? '', /cost cap/)
  assert.equal(workflow.task.attemptCount, 1, 'no retry')
  const used = workflow.task.budgetUsed?.costUsd ?? 0
  assert.ok(used > 0 && used <= 0.1, `the tree's cost ${used} is within its cap`)
  const budget = workflow.activity.find((a) => a.record.kind === 'budget')
  assert.equal(budget?.record.exhausted, 'costUsd')
})

test('a task may lower the cost cap for itself, never raise it', async () => {
  await settings({ budgetUnattendedCostUsd: 0.1 })
  const { limitsFrom } = await import('../compute-host/runs/budget.ts')
  const s = await okJson(await api().settings['agent-runtime'].$get(), 200)
  assert.equal(limitsFrom(s, { budgetCostUsd: 0.05 }, true).costUsd, 0.05)
  assert.equal(limitsFrom(s, { budgetCostUsd: 5 }, true).costUsd, 0.1)
  assert.equal(limitsFrom(s, null, false).costUsd, s.budgetCostUsd)
})

test('an observability database that does not answer never holds a run up', async () => {
  const { createServer } = await import('node:net')
  const { openNodePostgres } = await import('../compute-host/database/postgres.ts')
  const { createLogger } = await import('../compute-host/log.ts')
  const { createPriceCache } = await import('../compute-host/observability/price-cache.ts')
  // A server that takes the connection and never says a word.
  const sockets = new Set<import('node:net').Socket>()
  const silent = createServer((socket) => void sockets.add(socket))
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
  const port = (silent.address() as { port: number }).port
  const handle = openNodePostgres(`postgres://nobody@127.0.0.1:${port}/none`, { max: 1 })
  try {
    const cache = createPriceCache(handle.db, createLogger({ write: () => {} }))
    let started = performance.now()
    const first = await cache.current()
    assert.ok(performance.now() - started < 3_000, 'the first run waited at most about a second')
    assert.match(first.unavailable ?? '', /did not answer/)
    assert.equal(first.lookup('remote/a'), undefined)
    started = performance.now()
    const next = await cache.current()
    assert.ok(performance.now() - started < 100, 'later runs go on at once')
    assert.ok(next.unavailable)
  } finally {
    for (const socket of sockets) socket.destroy()
    silent.close()
    await handle.close().catch(() => {})
  }
})
