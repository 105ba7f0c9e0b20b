/**
 * The one-active-self-update index on the embedded database (PGlite): the second queued task is
 * refused with AUTONOMOUS_TASK_ACTIVE, and the slot frees when the first one ends.
 */
import assert from 'node:assert/strict'
import { eq } from '../db/drizzle-orm.ts'
import { test } from 'node:test'
import { DEFAULT_WORKSPACE_ID } from '../db/data-migrations/0002-register-default-workspace.ts'
import { tasks } from '../db/schema/index.ts'
import { enqueue } from '../runtime/tasks/index.ts'
import { createEmbeddedDatabase } from './support/database.ts'

test('PGlite: one self-update task active at a time', async () => {
  const database = await createEmbeddedDatabase()
  try {
    const task = {
      source: 'self-update',
      workspaceId: DEFAULT_WORKSPACE_ID,
      title: 't',
      prompt: 'p',
    } as const
    const first = await enqueue(database.db, task)
    await assert.rejects(enqueue(database.db, task), (error: unknown) => {
      assert.equal((error as { code?: string }).code, 'AUTONOMOUS_TASK_ACTIVE')
      return true
    })
    // The refusal happened in a savepoint: a transaction around it goes on.
    await database.db.transaction(async (tx) => {
      await assert.rejects(enqueue(tx, task))
      await enqueue(tx, { ...task, source: 'user' })
    })
    await database.db.update(tasks).set({ state: 'running' }).where(eq(tasks.id, first.id))
    await assert.rejects(enqueue(database.db, task), /only one runs at a time/)
    await database.db.update(tasks).set({ state: 'failed' }).where(eq(tasks.id, first.id))
    const second = await enqueue(database.db, task)
    assert.notEqual(second.id, first.id)
  } finally {
    await database.close()
  }
})
