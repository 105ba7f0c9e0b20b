/**
 * Self-update's owner review (issue 38's stretch): with POPAGENT_SELF_UPDATE_OWNER_REVIEW_S set,
 * a patch the model reviewer approved waits, as an approval of kind `self-update-patch`, for the
 * owner's answer before anything is committed. Allowed, the ref lands; rejected, or unanswered
 * within the bound, nothing is committed and the task fails as a review refusal. A real task
 * runner, the Mastra workflow, the scripted gateway, the sandboxed checks, PostgreSQL.
 */
import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { after, before, describe, test } from 'node:test'
import { createApprovals } from '../compute-host/approvals/approvals.ts'
import { HostMastraLogger } from '../compute-host/agents/mastra-logger.ts'
import { createLogger } from '../compute-host/log.ts'
import { createAdmissionQueue } from '../compute-host/models/admission-queue.ts'
import { createGatewayModels } from '../compute-host/models/gateway-models.ts'
import { createSelfUpdateExecutor, selfUpdateOr } from '../compute-host/self-update/executor.ts'
import type { TaskExecutor } from '../compute-host/tasks/runner.ts'
import { checkSandbox } from '../compute-host/workspaces/sandbox-check.ts'
import * as Approvals from '../runtime/approvals/index.ts'
import { createRedactor } from '../runtime/redaction.ts'
import * as Settings from '../runtime/settings/index.ts'
import * as Tasks from '../runtime/tasks/index.ts'
import * as Workspaces from '../runtime/workspaces/index.ts'
import { createTestDatabase, type TestDatabase } from './support/database.ts'
import {
  startScriptedGateway,
  type RecordedRequest,
  type Reply,
  type ScriptedGateway,
} from './support/scripted-gateway.ts'
import { fixtureRepo, git, tempDir } from './support/self-update-repo.ts'
import { add, row, startRunner, until } from './support/task-runner.ts'
import { waitFor } from './support/until.ts'

const sandbox = await checkSandbox()
const skip = !sandbox.available && `the sandbox is needed for verify: ${sandbox.reason}`

const json = (value: unknown): Reply => ({ text: JSON.stringify(value) })
function systemText(request: RecordedRequest): string {
  const first = request.body?.messages?.[0]
  return typeof first?.content === 'string' ? first.content : JSON.stringify(first?.content ?? '')
}
function lastUserText(request: RecordedRequest): string {
  const users = (request.body?.messages ?? []).filter((m: { role: string }) => m.role === 'user')
  const last = users.at(-1)?.content
  return typeof last === 'string' ? last : JSON.stringify(last ?? '')
}
/** The phases' model answers: research done, a change decided, one file written, approved. */
function reply(request: RecordedRequest): Reply | undefined {
  if (!request.path.endsWith('/chat/completions')) return undefined
  const system = systemText(request)
  if (/^You research/.test(system)) return json({ findings: [], openQuestions: [], done: true })
  if (/^You decide/.test(system)) {
    return json({
      kind: 'change',
      reason: 'document greet',
      plan: { summary: 'document greet', steps: ['add docs/greet.md'], files: ['docs/greet.md'] },
    })
  }
  if (/^You make the planned change/.test(system)) {
    return (request.body.messages as { role: string }[]).some((m) => m.role === 'tool')
      ? json({ summary: 'added docs/greet.md' })
      : {
          toolCalls: [
            {
              name: 'workspace-write',
              arguments: { path: 'docs/greet.md', content: '# greet\n\nSays hello.\n' },
            },
          ],
        }
  }
  if (/^You review/.test(system)) {
    return json({
      digest: /Digest: ([0-9a-f]{64})/.exec(lastUserText(request))![1],
      verdict: 'approve',
      testIntegrity: 'unchanged',
      findings: [],
    })
  }
  return { status: 500, message: 'unexpected request' }
}

describe('self-update owner review', { skip }, () => {
  let database: TestDatabase
  let gateway: ScriptedGateway
  let root: string

  before(async () => {
    database = await createTestDatabase()
    root = await tempDir('self-update-owner')
    await Settings.autonomy.patch(database.handle.db, { selfUpdateEnabled: true })
    gateway = await startScriptedGateway()
    gateway.respondWith(reply)
  })
  after(async () => {
    await gateway?.close()
    await database?.drop()
    await rm(root, { recursive: true, force: true })
  })

  /** Runs one self-update task; `owner` answers its approval (or leaves it) once it is asked. */
  async function runTask(
    name: string,
    waitMs: number,
    owner: (approvalId: string) => Promise<void>,
  ) {
    const db = database.handle.db
    const repo = await fixtureRepo(root, name)
    const workspace = await Workspaces.create(db, { name, path: name })
    const log = createLogger({ write: () => {} })
    const redact = createRedactor([])
    const execute = createSelfUpdateExecutor({
      db,
      workspaceRoot: root,
      log,
      models: createGatewayModels({
        url: gateway.url,
        localModels: { queue: createAdmissionQueue(1), isLocal: () => false },
      }),
      sandbox,
      verifyCommands: [[process.execPath, 'test/greet.test.ts']],
      checkLimitMs: 30_000,
      redact,
      mastraLogger: new HostMastraLogger(log),
      ownerReviewMs: waitMs,
      approvals: createApprovals({ db, log, redact, pollMs: 50 }),
    })
    const task = await add(db, 'document the greet function', {
      source: 'self-update',
      workspaceId: workspace.id,
      model: 'test/model',
      maxAttempts: 1,
    })
    const other: TaskExecutor = async () => ({ result: 'not under test' })
    const { runner } = startRunner(database.handle, {
      execute: selfUpdateOr(execute, other),
      timing: { timeoutMs: 60_000 },
    })
    await runner.start()
    try {
      const approval = await waitFor(
        async () => (await Approvals.list(db, { limit: 50 })).find((a) => a.taskId === task.id),
        45_000,
        'the owner to be asked',
      )
      assert.equal(approval.kind, 'self-update-patch')
      assert.equal(approval.toolName, null)
      assert.match(approval.summary, /Patch digest: [0-9a-f]{64}/)
      assert.match(approval.summary, /docs\/greet\.md/)
      // Waiting: nothing is committed while the owner has not answered.
      const ref = `refs/heads/autonomous/self-update/${task.id}`
      assert.equal(await git(repo, 'for-each-ref', ref), '')
      await owner(approval.id)
      await until(
        async () => ['completed', 'failed'].includes((await row(db, task.id)).state),
        60_000,
        'the task to end',
      )
      // The failed task's remediation (not under test) ends before the next test starts.
      await until(
        async () =>
          (await Tasks.list(db, { limit: 50 })).every(
            (t) => !['queued', 'running', 'cancelling'].includes(t.state),
          ),
        10_000,
        'every task to end',
      )
    } finally {
      await runner.stop()
    }
    return {
      task: await row(db, task.id),
      refs: await git(repo, 'for-each-ref', 'refs/heads/autonomous/'),
    }
  }

  test('the owner allows: the reviewed patch lands as the local ref', async () => {
    const { task, refs } = await runTask('allowed', 30_000, async (id) => {
      await Approvals.decide(database.handle.db, id, 'allow', 'owner-web')
    })
    assert.equal(task.state, 'completed', task.lastError ?? '')
    assert.match(refs, new RegExp(`autonomous/self-update/${task.id}`))
  })

  test('the owner rejects: nothing is committed and the task fails as a review refusal', async () => {
    const { task, refs } = await runTask('rejected', 30_000, async (id) => {
      await Approvals.decide(database.handle.db, id, 'deny', 'owner-web')
    })
    assert.equal(task.state, 'failed')
    assert.equal(task.lastErrorClass, 'validation')
    assert.match(task.lastError ?? '', /REVIEW_NOT_APPROVED: the owner rejected the change/)
    assert.equal(refs, '')
  })

  test('no answer within the bound: the approval expires, nothing is committed', async () => {
    const { task, refs } = await runTask('unanswered', 1_500, async () => {})
    assert.equal(task.state, 'failed')
    assert.match(task.lastError ?? '', /did not review the change within 2 s/)
    assert.equal(refs, '')
    const [approval] = await Approvals.list(database.handle.db, { status: 'expired', limit: 5 })
    assert.equal(approval?.taskId, task.id)
  })
})
