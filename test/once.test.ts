import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createOnce } from '../runtime/once.ts'

test('concurrent callers share one initialisation', async () => {
  let runs = 0
  const ready = createOnce(async () => {
    runs++
    await new Promise((r) => setTimeout(r, 10))
    return runs
  })
  const results = await Promise.all([ready(), ready(), ready()])
  assert.deepEqual(results, [1, 1, 1])
  assert.equal(runs, 1)
})

test('a success is kept: later callers do not run it again', async () => {
  let runs = 0
  const ready = createOnce(async () => ++runs)
  await ready()
  await ready()
  assert.equal(runs, 1)
})

test('a failure is not kept: the next caller tries again', async () => {
  let runs = 0
  const ready = createOnce(async () => {
    runs++
    if (runs === 1) throw new Error('database not up yet')
    return 'ok'
  })
  const [a, b] = await Promise.allSettled([ready(), ready()])
  assert.equal(a.status, 'rejected')
  assert.equal(b.status, 'rejected', 'callers during the failed attempt share its failure')
  assert.equal(await ready(), 'ok')
  assert.equal(runs, 2)
})
