/**
 * Across a task tree (issue 41, section 1): a call the loop breaker took out of a task is kept in
 * its transcript (a digest and why, never the arguments), and the task's remediation refuses that
 * call from its first attempt, telling the model why, instead of repeating it. Real stack, the
 * host's own runner, scripted gateway.
 */
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { and, asc, eq } from '../db/drizzle-orm.ts'
import { taskActivity, tasks } from '../db/schema/index.ts'
import * as Settings from '../runtime/settings/index.ts'
import * as Tasks from '../runtime/tasks/index.ts'
import type { RecordedRequest } from './support/scripted-gateway.ts'
import { startTestStack } from './support/stack.ts'
import { until } from './support/task-runner.ts'

const BROKEN = { name: 'workspace-read', arguments: { path: 'no/such/file.ts' } }

const messagesOf = (r: RecordedRequest): { role: string }[] => r.body?.messages ?? []
const toolsOffered = (r: RecordedRequest) => (r.body?.tools ?? []).length > 0

test('a remediation refuses the call that broke its parent from its first attempt', async () => {
  const root = await mkdtemp(join(tmpdir(), 'popagent-remediation-loop-'))
  await mkdir(join(root, 'popagent'))
  const stack = await startTestStack({
    models: [{ id: 'remote/a' }],
    hostEnv: { POPAGENT_WORKSPACE_ROOT: root },
  })
  const db = stack.host.resources.databases.application.db
  try {
    await Settings.agentRuntime.patch(db, {
      configuredModel: 'remote/a',
      modelSource: 'configured',
      loopRepeatLimit: 3,
      // The remediation is picked up on the runner's next poll.
      taskPollIntervalMs: 200,
    })
    stack.gateway.respondWith((r) => {
      if (!r.path.endsWith('/chat/completions')) return undefined
      const remediation = JSON.stringify(messagesOf(r)).includes('Background task')
      if (!remediation) {
        // The parent asks for the failing call until the loop breaker stops it; its answering
        // step is then refused by the gateway, a permanent failure that gets a remediation.
        return toolsOffered(r)
          ? { toolCalls: [BROKEN] }
          : { status: 400, message: 'scripted refusal' }
      }
      // The remediation tries the same call first, then answers.
      const answered = messagesOf(r).some((m) => m.role === 'tool')
      return answered || !toolsOffered(r)
        ? { text: 'the file is missing' }
        : { toolCalls: [BROKEN] }
    })
    const parent = await Tasks.create(db, {
      workspaceId: 'wsp_default',
      prompt: 'read no/such/file.ts',
      maxAttempts: 1,
    })
    const records = async (taskId: string) =>
      (
        await db
          .select()
          .from(taskActivity)
          .where(eq(taskActivity.taskId, taskId))
          .orderBy(asc(taskActivity.id))
      ).map((row): Record<string, unknown> => ({ attempt: row.attempt, ...row.record }))
    await until(
      async () => (await Tasks.get(db, parent.id)).state === 'failed',
      30_000,
      'the parent to fail',
    )
    const kept = (await records(parent.id)).filter((r) => r.kind === 'loop-broken')
    assert.equal(kept.length, 1, 'the broken call is kept in the parent’s transcript')
    assert.equal(kept[0]?.tool, 'workspace-read')
    assert.doesNotMatch(JSON.stringify(kept[0]), /no\/such\/file/, 'a digest, not the arguments')

    let remediation: typeof tasks.$inferSelect | undefined
    await until(
      async () => {
        ;[remediation] = await db
          .select()
          .from(tasks)
          .where(and(eq(tasks.parentTaskId, parent.id), eq(tasks.kind, 'remediation')))
        return remediation?.state === 'completed'
      },
      30_000,
      'the remediation to finish',
    )
    const done = await records(remediation!.id)
    const ran = done.filter((r) => r.kind === 'tool' && r.tool === 'workspace-read')
    assert.equal(ran.length, 0, 'the call did not run in the remediation')
    // A guard record names the guard as its tool and the refused call as its input.
    const refused = done.filter((r) => r.kind === 'guard' && r.input === 'workspace-read')
    assert.equal(refused.length, 1)
    assert.equal(refused[0]?.attempt, 1, 'refused from the first attempt')
    assert.match(
      String(refused[0]?.error),
      /The task this remediates was stopped on this exact call/,
    )

    // The transcript keeps its newest 256 records, and the broken calls whatever their age.
    const { appendActivity, TRANSCRIPT_LIMIT } = await import('../compute-host/tasks/transcript.ts')
    // Many records at once, then one append: its trim is the one under test.
    const rows = Array.from({ length: TRANSCRIPT_LIMIT + 20 }, (_, i) => ({
      taskId: parent.id,
      attempt: 1,
      record: { kind: 'x', i },
    }))
    await db.insert(taskActivity).values(rows.slice(1))
    await appendActivity(db, rows[0]!, (t) => t)
    const trimmed = await records(parent.id)
    assert.equal(trimmed.filter((r) => r.kind === 'x').length, TRANSCRIPT_LIMIT)
    assert.equal(trimmed.filter((r) => r.kind === 'loop-broken').length, 1, 'still kept')
  } finally {
    await stack.stop()
    await rm(root, { recursive: true, force: true })
  }
})
