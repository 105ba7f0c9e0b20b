import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createUsageMeter } from '../compute-host/runs/usage.ts'

test('usage is summed per model and per agent, and a snapshot taken stays as it was', () => {
  const usage = createUsageMeter()
  usage.add('remote/a', { inputTokens: 10, outputTokens: 2 }, 'orchistrator')
  usage.add('remote/a', { inputTokens: 5 }, 'implementer')
  const models = usage.snapshot()
  const agents = usage.byAgent()
  assert.deepEqual(models, { 'remote/a': { inputTokens: 15, outputTokens: 2 } })
  assert.deepEqual(agents, {
    orchistrator: { model: 'remote/a', inputTokens: 10, outputTokens: 2 },
    implementer: { model: 'remote/a', inputTokens: 5, outputTokens: 0 },
  })
  usage.add('remote/a', { inputTokens: 1, outputTokens: 1 }, 'orchistrator')
  usage.add('remote/b', { outputTokens: 3 })
  // What was sent to the client or saved with a message does not move with later steps.
  assert.deepEqual(models, { 'remote/a': { inputTokens: 15, outputTokens: 2 } })
  assert.equal(agents.orchistrator!.inputTokens, 10)
  assert.deepEqual(usage.snapshot(), {
    'remote/a': { inputTokens: 16, outputTokens: 3 },
    'remote/b': { inputTokens: 0, outputTokens: 3 },
  })
  assert.equal(usage.byAgent().orchistrator!.inputTokens, 11)
})
