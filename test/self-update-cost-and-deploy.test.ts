/**
 * Self-update under the unattended cost cap, and its optional deploy step (issues 40 and 41): a
 * phase agent's call that could pass the cap is not made (the gateway never sees it) and the task
 * ends `budget-exhausted`; with deployment on, a committed change gets a `deploy` phase that
 * refuses with its reason, and a no-op run a skipped one. Real task runner, real PostgreSQL, the
 * scripted gateway, a fixture repository and the bubblewrap sandbox for verify.
 */
import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { after, before, test } from 'node:test'
import { createAdmissionQueue } from '../compute-host/models/admission-queue.ts'
import { createGatewayModels } from '../compute-host/models/gateway-models.ts'
import type { RunPrices } from '../compute-host/runs/cost-cap.ts'
import { createSelfUpdateExecutor, selfUpdateOr } from '../compute-host/self-update/executor.ts'
import { createLogger } from '../compute-host/log.ts'
import { HostMastraLogger } from '../compute-host/agents/mastra-logger.ts'
import { checkSandbox } from '../compute-host/workspaces/sandbox-check.ts'
import { createRedactor } from '../runtime/redaction.ts'
import * as Settings from '../runtime/settings/index.ts'
import * as Tasks from '../runtime/tasks/index.ts'
import * as Workspaces from '../runtime/workspaces/index.ts'
import { createTestDatabase } from './support/database.ts'
import {
  startScriptedGateway,
  type RecordedRequest,
  type Reply,
  type ScriptedGateway,
} from './support/scripted-gateway.ts'
import { fixtureRepo, git, tempDir } from './support/self-update-repo.ts'
import { add, row, startRunner, until } from './support/task-runner.ts'

let database: Awaited<ReturnType<typeof createTestDatabase>>
let gateway: ScriptedGateway
let root: string
let sandbox: Awaited<ReturnType<typeof checkSandbox>>

const json = (value: unknown): Reply => ({ text: JSON.stringify(value) })
const systemOf = (r: RecordedRequest) => JSON.stringify(r.body?.messages?.[0]?.content ?? '')
const lastUser = (r: RecordedRequest) =>
  JSON.stringify(
    (r.body?.messages ?? []).filter((m: { role: string }) => m.role === 'user').at(-1)?.content,
  )

/** research done → decide (change or noop) → implement writes docs → review echoes the digest. */
function script(decision: 'change' | 'noop') {
  return (r: RecordedRequest): Reply | undefined => {
    if (!r.path.endsWith('/chat/completions')) return undefined
    const system = systemOf(r)
    if (system.includes('You research'))
      return json({ findings: [], openQuestions: [], done: true })
    if (system.includes('You decide'))
      return json(
        decision === 'noop'
          ? { kind: 'noop', reason: 'nothing to do', plan: null }
          : {
              kind: 'change',
              reason: 'document greet',
              plan: { summary: 'document greet', steps: ['write'], files: ['docs/greet.md'] },
            },
      )
    if (system.includes('You make the planned change'))
      return (r.body.messages as { role: string }[]).some((m) => m.role === 'tool')
        ? json({ summary: 'added docs/greet.md' })
        : {
            toolCalls: [
              {
                name: 'workspace-write',
                arguments: { path: 'docs/greet.md', content: '# greet\n' },
              },
            ],
          }
    if (system.includes('You review'))
      return json({
        digest: /Digest: ([0-9a-f]{64})/.exec(lastUser(r))![1],
        verdict: 'approve',
        testIntegrity: 'unchanged',
        findings: [],
      })
    return { status: 500, message: 'unexpected request' }
  }
}

before(async () => {
  database = await createTestDatabase()
  root = await tempDir('self-update-cost')
  sandbox = await checkSandbox()
  await Settings.autonomy.patch(database.handle.db, { selfUpdateEnabled: true })
  gateway = await startScriptedGateway()
})
after(async () => {
  await gateway.close()
  await database.drop()
  await rm(root, { recursive: true, force: true })
})

async function runTask(name: string, prices?: RunPrices) {
  const db = database.handle.db
  const repo = await fixtureRepo(root, name)
  const workspace = await Workspaces.create(db, { name, path: name })
  const execute = createSelfUpdateExecutor({
    db,
    workspaceRoot: root,
    log: createLogger({ write: () => {} }),
    mastraLogger: new HostMastraLogger(createLogger({ write: () => {} })),
    models: createGatewayModels({
      url: gateway.url,
      localModels: { queue: createAdmissionQueue(1), isLocal: () => false },
    }),
    sandbox,
    verifyCommands: [[process.execPath, 'test/greet.test.ts']],
    checkLimitMs: 30_000,
    redact: createRedactor([]),
    ...(prices && { prices: async () => prices }),
  })
  const task = await add(db, 'document greet', {
    source: 'self-update',
    workspaceId: workspace.id,
    model: 'test/model',
    maxAttempts: 1,
  })
  const { runner } = startRunner(database.handle, {
    execute: selfUpdateOr(execute, async () => ({ result: 'not under test' })),
    timing: { timeoutMs: 60_000 },
  })
  await runner.start()
  try {
    await until(
      async () => ['completed', 'failed'].includes((await row(db, task.id)).state),
      60_000,
      'the task to end',
    )
  } finally {
    await runner.stop()
  }
  return { repo, task: await row(db, task.id), view: await Tasks.workflow(db, task.id) }
}

test('a self-update phase whose next call could pass the unattended cost cap stops before the call', async () => {
  gateway.respondWith(script('change'))
  const sent = gateway.requests.length
  // $10,000 per million output tokens: the 8,192 reserved for one call alone is about $82,
  // far past the unattended cap (1 USD).
  const prices: RunPrices = {
    lookup: (model) =>
      model === 'test/model'
        ? { inputUsdPerMtok: 1, outputUsdPerMtok: 10_000, cacheReadUsdPerMtok: null }
        : undefined,
  }
  const { task, view } = await runTask('capped', prices)
  assert.equal(task.state, 'failed')
  assert.equal(task.lastErrorClass, 'budget-exhausted', task.lastError ?? '')
  assert.match(task.lastError ?? '', /cost cap/)
  assert.equal(
    gateway.requests.slice(sent).filter((r) => r.path.endsWith('/chat/completions')).length,
    0,
    'no model call was made',
  )
  const research = view.phases.find((p) => p.name === 'research')
  assert.equal(research?.state, 'failed')
  assert.match(research?.error ?? '', /cost cap/)
  assert.equal(
    view.phases.find((p) => p.name === 'decide'),
    undefined,
  )
  assert.equal(task.budgetUsed?.costUsd, 0)
})

test('with deployment on, a committed change gets a deploy phase that refuses with its reason', async () => {
  if (!sandbox.available) throw new Error(`the sandbox is needed for verify: ${sandbox.reason}`)
  await Settings.autonomy.patch(database.handle.db, { deploymentEnabled: true })
  gateway.respondWith(script('change'))
  const { repo, task, view } = await runTask('deploy-on')
  assert.equal(task.state, 'completed', task.lastError ?? '')
  const commit = view.phases.find((p) => p.name === 'commit')!
  const sha = (commit.output as { commitSha: string }).commitSha
  assert.match(sha, /^[0-9a-f]{40}$/)
  const deploy = view.phases.find((p) => p.name === 'deploy')
  assert.equal(deploy?.state, 'failed')
  assert.match(
    deploy?.error ?? '',
    new RegExp(`^deploy refused: ${sha} exists only as the local ref`),
  )
  assert.match(deploy?.evidence ?? '', /immutable CI verification/)
  assert.match(task.result ?? '', /\ndeploy refused: /)
  // Nothing beyond the local ref: no remote, no other branch moved.
  assert.equal((await git(repo, 'remote')).trim(), '')
})

test('with deployment on, a no-op run records the deploy step as skipped', async () => {
  gateway.respondWith(script('noop'))
  const { task, view } = await runTask('deploy-noop')
  assert.equal(task.state, 'completed', task.lastError ?? '')
  assert.equal(view.phases.find((p) => p.name === 'deploy')?.state, 'skipped')
  assert.match(task.result ?? '', /nothing to deploy/)
})

test('with deployment off, no deploy phase is written', async () => {
  await Settings.autonomy.patch(database.handle.db, { deploymentEnabled: false })
  gateway.respondWith(script('noop'))
  const { task, view } = await runTask('deploy-off')
  assert.equal(task.state, 'completed', task.lastError ?? '')
  assert.equal(
    view.phases.find((p) => p.name === 'deploy'),
    undefined,
  )
  assert.equal(task.result, 'No change: nothing to do')
})
