/**
 * Runaway runs against the guard rails (B1): randomized scripted models that never stop calling
 * tools (some ignore the tool-free answering step too), burn tokens every step, or delegate the
 * same thing forever. Every run must stop within its budget or the loop limit, with any overshoot
 * at most 5 % of the budget that ended it. Random but seeded, so a failure can be replayed:
 * POPAGENT_FAULT_SEED=<n>. Real stack, scripted gateway.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { messagesOf, roleOf } from '../support/chat.ts'
import { observedChatStack } from '../support/observed-chat.ts'
import type { RecordedRequest } from '../support/scripted-gateway.ts'
import { okJson, typedClient } from '../support/typed-client.ts'
import { recordFigures, sized } from './mode.ts'
import { seededRandom } from '../support/seeded-random.ts'

const RUNS = sized(6, 50)
const SEED = Number(process.env.POPAGENT_FAULT_SEED ?? Date.now() % 100_000)

const chat = observedChatStack()

const offersTools = (r: RecordedRequest) => (r.body?.tools ?? []).length > 0

type Scenario = 'tool-loop' | 'token-burn' | 'delegation-loop'

test(`${RUNS} randomized runaway runs all stop within their budget or loop limit`, async () => {
  const next = seededRandom(SEED)
  const pick = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1))
  const api = typedClient(chat.stack.edge()).api
  const worst: Record<string, number> = { toolCalls: 0, inputTokens: 0, outputTokens: 0 }
  const byScenario: Record<Scenario, number> = {
    'tool-loop': 0,
    'token-burn': 0,
    'delegation-loop': 0,
  }
  let stopped = 0
  for (let i = 0; i < RUNS; i++) {
    const scenario = (['tool-loop', 'token-burn', 'delegation-loop'] as const)[i % 3]!
    const stubborn = next() < 0.5 // ignores the answering step and asks for tools anyway
    const toolCalls = pick(2, 20)
    const inputTokens = pick(5, 40) * 1_000
    const repeatLimit = pick(2, 5)
    // Input tokens a step reports: between 0.7 % and 1.7 % of the token budget, as a real step of
    // tens of thousands of tokens is of a budget in the millions (and the budget is reached well
    // before the step ceiling of 200).
    const perStep = Math.ceil(inputTokens / pick(60, 150))
    await okJson(
      await api.settings['agent-runtime'].$patch({
        json: {
          budgetToolCalls: scenario === 'tool-loop' ? toolCalls : 10_000,
          budgetInputTokens: scenario === 'token-burn' ? inputTokens : 1_000_000_000,
          budgetOutputTokens: 100_000_000,
          loopRepeatLimit: repeatLimit,
          supervisorMaxSteps: 200,
          specialistMaxSteps: 200,
        },
      }),
      200,
    )
    let n = 0
    chat.stack.gateway.respondWith((r) => {
      const usage = { promptTokens: perStep, completionTokens: 5 }
      if (roleOf(r) === 'researcher') return { text: 'more to look at', usage }
      if (!offersTools(r) && !stubborn) return { text: 'final', usage }
      if (scenario === 'delegation-loop') {
        return {
          toolCalls: [{ name: 'agent-researcher', arguments: { prompt: 'again' } }],
          usage,
        }
      }
      return { toolCalls: [{ name: 'repo-brief', arguments: { query: `q${++n}` } }], usage }
    })
    chat.clearEvents()
    const { metadata: meta } = await chat.turn()
    const events = chat.events
    const ran = events.filter((e) => e.type === 'tool-start').length
    const delegated = events.filter((e) => e.type === 'delegation-start').length
    const ended = events.some((e) => e.type === 'run-end')
    const context = JSON.stringify({ i, SEED, scenario, stubborn, meta: meta.budget })
    assert.ok(ended, `run ${i} never ended: ${context}`)
    if (scenario === 'tool-loop') {
      assert.equal(meta.budget?.exhausted, 'toolCalls', context)
      assert.ok(ran <= toolCalls, `ran ${ran} of ${toolCalls}: ${context}`)
      worst.toolCalls = Math.max(worst.toolCalls!, (ran - toolCalls) / toolCalls)
    } else if (scenario === 'token-burn') {
      assert.equal(meta.budget?.exhausted, 'inputTokens', context)
      const over = (meta.budget!.used.inputTokens - inputTokens) / inputTokens
      worst.inputTokens = Math.max(worst.inputTokens!, over)
      assert.ok(over <= 0.05, `input tokens over by ${(over * 100).toFixed(1)} %: ${context}`)
    } else {
      assert.ok(delegated <= repeatLimit, `delegated ${delegated} times: ${context}`)
    }
    // A refused call never reaches the model's tools, and the model is never asked forever.
    assert.ok(
      chat.stack.gateway.requests.filter((r) => messagesOf(r).length > 0).length > 0,
      'the gateway saw no request',
    )
    byScenario[scenario] += 1
    stopped += 1
  }
  await recordFigures('runaway-runs', {
    seed: SEED,
    runs: RUNS,
    stopped,
    byScenario,
    worstOvershootPercent: Object.fromEntries(
      Object.entries(worst).map(([k, v]) => [k, Math.round(v * 1000) / 10]),
    ),
  })
  assert.equal(stopped, RUNS)
})
