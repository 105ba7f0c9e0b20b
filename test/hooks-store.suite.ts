/**
 * Hook definitions and the audit trail, written once and run on real PostgreSQL
 * (hooks-store.postgres.test.ts) and the embedded database (hooks-store.embedded.test.ts).
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Db } from '../db/index.ts'
import * as Hooks from '../runtime/hooks/index.ts'

export type HooksStoreContext = { db: Db; close: () => Promise<void> }

export function hooksStoreSuite(name: string, setup: () => Promise<HooksStoreContext>) {
  describe(name, () => {
    let ctx: HooksStoreContext
    before(async () => {
      ctx = await setup()
    })
    after(() => ctx.close())
    const base = { matcher: '*', timeoutMs: 1_000, priority: 100, enabled: true }

    test('enabled hooks of an event come in (priority, created, id) order', async () => {
      const late = await Hooks.create(ctx.db, {
        ...base,
        name: 'late',
        event: 'PreToolUse',
        kind: 'command',
        command: ['true'],
        priority: 50,
      })
      const early = await Hooks.create(ctx.db, {
        ...base,
        name: 'early',
        event: 'PreToolUse',
        kind: 'command',
        command: ['true'],
        priority: 10,
      })
      const off = await Hooks.create(ctx.db, {
        ...base,
        name: 'off',
        event: 'PreToolUse',
        kind: 'command',
        command: ['true'],
        enabled: false,
      })
      await Hooks.create(ctx.db, {
        ...base,
        name: 'other',
        event: 'TaskStart',
        kind: 'command',
        command: ['true'],
      })
      const rows = await Hooks.enabledFor(ctx.db, 'PreToolUse')
      assert.deepEqual(
        rows.map((r) => r.id),
        [early.id, late.id],
      )
      await Hooks.patch(ctx.db, off.id, { enabled: true, priority: 0 })
      assert.equal((await Hooks.enabledFor(ctx.db, 'PreToolUse'))[0]!.id, off.id)
      await assert.rejects(Hooks.patch(ctx.db, off.id, { url: 'https://x.example' }), {
        code: 'HOOK_INVALID',
      })
      await Hooks.remove(ctx.db, off.id)
      await assert.rejects(Hooks.remove(ctx.db, off.id), { code: 'HOOK_NOT_FOUND' })
    })

    test('an audit row is written running, completed once, and listed per session and task', async () => {
      const start = {
        hookId: 'hok_x',
        hookName: 'x',
        event: 'PreToolUse' as const,
        sessionId: 'ses_a',
        taskId: null,
        runId: 'trn_1',
        toolName: 'shell',
        inputSha256: 'f'.repeat(64),
        inputPreview: '{}',
      }
      const id = await Hooks.auditStart(ctx.db, start)
      let [run] = await Hooks.runsOf(ctx.db, { sessionId: 'ses_a' })
      assert.equal(run!.outcome, 'running')
      const end = {
        outcome: 'deny' as const,
        failure: null,
        reason: 'no',
        context: null,
        outputPreview: '{"decision":"deny"}',
        durationMs: 5,
      }
      await Hooks.auditFinish(ctx.db, id, end)
      // A second completion changes nothing: the first one stands.
      await Hooks.auditFinish(ctx.db, id, { ...end, outcome: 'allow', reason: 'changed' })
      ;[run] = await Hooks.runsOf(ctx.db, { sessionId: 'ses_a' })
      assert.equal(run!.outcome, 'deny')
      assert.equal(run!.reason, 'no')
      await Hooks.auditStart(ctx.db, { ...start, sessionId: null, taskId: 'tsk_b' })
      assert.equal((await Hooks.runsOf(ctx.db, { taskId: 'tsk_b' })).length, 1)
      assert.deepEqual(
        (await Hooks.runsByIds(ctx.db, [id])).map((r) => r.id),
        [id],
      )
    })
  })
}
