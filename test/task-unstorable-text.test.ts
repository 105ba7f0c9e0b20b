/**
 * A task whose result, error or transcript holds text PostgreSQL cannot store (a NUL, a lone
 * surrogate: model output and tool text can hold either) still ends: the characters are replaced
 * with U+FFFD. Before, every attempt to record the end failed and the task stayed running.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { TaskExecutor } from '../compute-host/tasks/runner.ts'
import { toStorable } from '../runtime/contracts/storable-text.ts'
import * as Tasks from '../runtime/tasks/index.ts'
import { createTestDatabase, type TestDatabase } from './support/database.ts'
import { add, row, startRunner } from './support/task-runner.ts'
import { until } from './support/until.ts'

let database: TestDatabase
before(async () => {
  database = await createTestDatabase()
})
after(() => database.drop())

test('unstorable characters become U+FFFD and nothing else changes', () => {
  assert.equal(toStorable('a\u0000b\ud800c\udc00d'), 'a\ufffdb\ufffdc\ufffdd')
  assert.equal(toStorable('pair \ud83d\ude00 kept'), 'pair \ud83d\ude00 kept')
})

test('a result, a failure and a transcript with a NUL are saved, and the task ends', async () => {
  const execute: TaskExecutor = async (task, context) => {
    await context.record({ text: 'tool said \u0000 here' })
    if (task.prompt === 'fail') throw new Error('broken \u0000 error \ud800')
    return { result: 'answer with \u0000 in it' }
  }
  const { runner } = startRunner(database.handle, { execute })
  await runner.start()
  try {
    const ok = await add(database.db, 'succeed')
    const bad = await add(database.db, 'fail', { maxAttempts: 1 })
    await until(async () => (await row(database.db, ok.id)).state === 'completed', 10_000, 'ok')
    await until(
      async () => ['failed', 'dead-letter'].includes((await row(database.db, bad.id)).state),
      10_000,
      'the failing task',
    )
    assert.equal((await row(database.db, ok.id)).result, 'answer with \ufffd in it')
    assert.match((await row(database.db, bad.id)).lastError ?? '', /broken \ufffd error \ufffd/)
    const transcript = await Tasks.activity(database.db, ok.id)
    assert.ok(
      JSON.stringify(transcript).includes('tool said \ufffd here'),
      JSON.stringify(transcript),
    )
  } finally {
    await runner.stop()
  }
})
