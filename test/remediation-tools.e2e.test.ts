/**
 * Remediation that can act (issue 24, T8), end to end on a real stack: a user task fails for good,
 * its remediation runs on the host's own runner, reads the parent's evidence with its native
 * `task-evidence` tool and resolves the parent with `task-resolve`, giving evidence. The tools are
 * bound to that one parent: the model names no task id.
 */
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { and, eq } from '../db/drizzle-orm.ts'
import { tasks } from '../db/schema/index.ts'
import * as Settings from '../runtime/settings/index.ts'
import * as Tasks from '../runtime/tasks/index.ts'
import type { RecordedRequest } from './support/scripted-gateway.ts'
import { offeredTools } from './support/chat.ts'
import { enqueueRemediation } from '../compute-host/tasks/sql/enqueue-remediation.ts'
import { createId } from '../runtime/ids.ts'
import { startTestStack } from './support/stack.ts'
import { until } from './support/task-runner.ts'

const EVIDENCE =
  'Checked README.md in the repository: the requested section is present and correct.'

function messagesOf(request: RecordedRequest): { role: string; content: unknown }[] {
  return request.body?.messages ?? []
}

test('a remediation resolves its failed parent through its own tools, with evidence', async () => {
  const root = await mkdtemp(join(tmpdir(), 'popagent-remediation-'))
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
    })
    const toolResults: string[] = []
    stack.gateway.respondWith((request) => {
      if (!request.path.endsWith('/chat/completions')) return undefined
      const text = JSON.stringify(messagesOf(request))
      if (!text.includes('Background task')) {
        // The parent: a refusal the classifier treats as permanent.
        if (text.includes('add a usage section'))
          return { status: 400, message: 'scripted refusal' }
        return { text: 'ok' }
      }
      const tools = messagesOf(request).filter((m) => m.role === 'tool')
      if (tools.length === 0) return { toolCalls: [{ name: 'task-evidence', arguments: {} }] }
      if (tools.length === 1) {
        toolResults.push(JSON.stringify(tools[0]!.content))
        return { toolCalls: [{ name: 'task-resolve', arguments: { evidence: EVIDENCE } }] }
      }
      toolResults.push(JSON.stringify(tools[1]!.content))
      return { text: 'The parent task is resolved with evidence.' }
    })
    const parent = await Tasks.create(db, {
      workspaceId: 'wsp_default',
      prompt: 'add a usage section to README.md',
      maxAttempts: 1,
    })
    await until(
      async () =>
        (await Tasks.get(db, parent.id)).state !== 'queued' &&
        (await Tasks.get(db, parent.id)).state !== 'running',
      30_000,
      'the parent to fail',
    )
    const [remediation] = await db
      .select()
      .from(tasks)
      .where(and(eq(tasks.parentTaskId, parent.id), eq(tasks.kind, 'remediation')))
    assert.ok(remediation, 'a remediation was queued')
    await until(
      async () => (await Tasks.get(db, remediation.id)).state === 'completed',
      60_000,
      'the remediation to complete',
    )

    const resolved = await Tasks.get(db, parent.id)
    assert.equal(resolved.state, 'completed')
    assert.equal(resolved.resolutionEvidence, EVIDENCE)
    assert.ok(resolved.resolvedAt)
    // The evidence tool showed the parent's own failure; the resolve tool reported the new state.
    assert.match(toolResults[0] ?? '', new RegExp(parent.id))
    assert.match(toolResults[0] ?? '', /scripted refusal/)
    assert.match(toolResults[1] ?? '', /completed/)
    assert.match(remediation.prompt, /task-evidence tool/)
  } finally {
    await stack.stop()
    await rm(root, { recursive: true, force: true })
  }
})

test('a self-update remediation gets the task tools and no repository to write in', async () => {
  const root = await mkdtemp(join(tmpdir(), 'popagent-remediation-su-'))
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
    })
    const offered: string[][] = []
    stack.gateway.respondWith((request) => {
      if (!request.path.endsWith('/chat/completions')) return undefined
      if (!JSON.stringify(messagesOf(request)).includes('Background task')) return { text: 'ok' }
      offered.push(offeredTools(request))
      const tools = messagesOf(request).filter((m) => m.role === 'tool')
      if (tools.length === 0)
        return { toolCalls: [{ name: 'task-resolve', arguments: { evidence: EVIDENCE } }] }
      return { text: 'resolved' }
    })
    // A self-update task that failed for good (written as the runner would), and its remediation.
    const [parent] = await db
      .insert(tasks)
      .values({
        id: createId('task'),
        source: 'self-update',
        workspaceId: 'wsp_default',
        title: 'Self-update',
        prompt: 'improve the repository',
        state: 'failed',
        attemptCount: 1,
        lastErrorClass: 'containment',
        lastError: 'inspect-change: PATCH_POLICY_REFUSED: .github/workflows/ci.yml is protected',
      })
      .returning()
    await enqueueRemediation(db, parent!)
    const [remediation] = await db.select().from(tasks).where(eq(tasks.parentTaskId, parent!.id))
    assert.equal(remediation?.source, 'self-update')
    await until(
      async () => (await Tasks.get(db, remediation!.id)).state === 'completed',
      60_000,
      'the remediation',
    )
    assert.equal((await Tasks.get(db, parent!.id)).resolutionEvidence, EVIDENCE)
    assert.ok(offered.length > 0)
    for (const tools of offered) {
      assert.ok(tools.includes('task-evidence') && tools.includes('task-resolve'), tools.join())
      assert.deepEqual(
        tools.filter((t) => t.startsWith('workspace-') || t === 'shell'),
        [],
        'no file tool or shell on the owner checkout',
      )
    }
  } finally {
    await stack.stop()
    await rm(root, { recursive: true, force: true })
  }
})
