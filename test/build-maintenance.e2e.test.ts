/**
 * The `build-maintenance` task source (issue 40) end to end: a real stack (PostgreSQL, compute
 * host, task runner, agents from the seeded roles) with AkurAI Build configured against the
 * protocol-faithful fake Build server built with the MCP SDK on loopback, and the scripted
 * gateway as the model. A task in the registered `AkurAI-Build` workspace delegates to the Build
 * maintainer, the independent reviewer and the community steward, and what the Build calls
 * returned is recorded as queryable evidence. The autonomous lease keeps build-maintenance and
 * self-update apart both ways, and a chat turn in the workspace is refused while an attempt works
 * there; without a key, in another workspace, or beside a live chat turn
 * an attempt is refused with its reason before any agent runs.
 */
import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { after, before, describe, test } from 'node:test'
import { asc, eq } from '../db/drizzle-orm.ts'
import type { Db } from '../db/index.ts'
import { liveTurns, scheduleFires, schedules, sessions, tasks } from '../db/schema/index.ts'
import { acceptCheckout } from '../compute-host/build/checkout-acceptance.ts'
import { createBuildClient } from '../compute-host/build/client.ts'
import { createBuildMaintenanceExecutor } from '../compute-host/build/maintenance.ts'
import { createLogger } from '../compute-host/log.ts'
import { createScheduler } from '../compute-host/schedules/scheduler.ts'
import { readCheckout } from '../compute-host/self-update/checkout-state.ts'
import type { TaskExecutor } from '../compute-host/tasks/runner.ts'
import { listBuildEvidence } from '../runtime/build/evidence.ts'
import { BuildDisabled, queueBuildMaintenance } from '../runtime/build/maintenance.ts'
import { createId } from '../runtime/ids.ts'
import { AutonomousTaskActive } from '../runtime/self-update/autonomous-slot.ts'
import * as Tasks from '../runtime/tasks/index.ts'
import * as Workspaces from '../runtime/workspaces/index.ts'
import { createSession } from './support/api-fixtures.ts'
import { markRoles, postChat, roleOf, toolResultsOf } from './support/chat.ts'
import { createTestDatabase, type TestDatabase } from './support/database.ts'
import {
  BUILD_TEST_KEY,
  startFakeBuildServer,
  type FakeBuildServer,
} from './support/mcp-build-server.ts'
import type { Reply, ToolCallScript } from './support/scripted-gateway.ts'
import { fixtureRepo, git, tempDir } from './support/self-update-repo.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { row, startRunner, until } from './support/task-runner.ts'
import { errorJson, okJson, typedClient } from './support/typed-client.ts'

const SUPERVISOR = 'orchistrator'
const ROLES = [SUPERVISOR, 'build-maintainer', 'reviewer', 'community-steward']
const FAR = new Date('2100-01-01T00:00:00Z')

describe('build-maintenance on a real stack with the fake Build server', () => {
  let build: FakeBuildServer
  let stack: TestStack
  let root: string
  let repo: string
  let db: Db
  let workspaceId: string
  let url: string

  before(async () => {
    build = await startFakeBuildServer()
    root = await tempDir('build-maintenance')
    repo = await fixtureRepo(root, 'akurai-build')
    stack = await startTestStack({
      models: [{ id: 'remote/a' }],
      hostEnv: {
        POPAGENT_WORKSPACE_ROOT: root,
        AKURAI_BUILD_URL: build.url,
        AKURAI_BUILD_API_KEY: BUILD_TEST_KEY,
      },
    })
    db = stack.host.resources.databases.application.db
    url = await stack.listen()
    await markRoles(stack, ROLES)
    // The seeded maintainer holds `build-runs` (its allowlist's CI tool) and writes the workspace.
    const api = typedClient(stack.edge()).api
    const agent = await okJson(
      await api.agents[':id'].$get({ param: { id: 'build-maintainer' } }),
      200,
    )
    assert.ok(agent.tools.includes('build-runs'), agent.tools.join(', '))
  })
  after(async () => {
    await stack?.stop()
    await build?.stop()
    await rm(root, { recursive: true, force: true })
  })

  /** Each role's script: the n-th answer it gives, counted by the tool results it has seen. */
  function script(head: string) {
    const calls: Record<string, (ToolCallScript | string)[]> = {
      [SUPERVISOR]: [
        { name: 'agent-build-maintainer', arguments: { prompt: 'Check the runs, queue CI.' } },
        { name: 'agent-reviewer', arguments: { prompt: 'Review what was queued.' } },
        { name: 'agent-community-steward', arguments: { prompt: 'Tell issue 7.' } },
        'Done: run-2 queued for main, comment-9 on issue 7.',
      ],
      'build-maintainer': [
        {
          name: 'build-runs',
          arguments: { operation: 'runs_queue', arguments: { ref: 'main', commit: head } },
        },
        'Queued run-2 for main at the reviewed commit.',
      ],
      reviewer: ['Approve: nothing in the workspace changed.'],
      'community-steward': [
        {
          name: 'build-comments',
          arguments: { operation: 'comments_create', arguments: { issue: '7', body: 'CI queued' } },
        },
        'Commented on issue 7.',
      ],
    }
    stack.gateway.respondWith((r): Reply | undefined => {
      if (!r.path.endsWith('/chat/completions')) return undefined
      const role = roleOf(r)
      const steps = calls[role]
      if (!steps) return { status: 500, message: `no script for ${role}` }
      const n = toolResultsOf(r).length
      const next = steps[Math.min(n, steps.length - 1)]!
      // The maintainer takes a moment first: the window in which a chat turn is tried.
      const delay = role === 'build-maintainer' && n === 0 ? { delayMs: 1_500 } : {}
      return typeof next === 'string' ? { text: next, ...delay } : { toolCalls: [next], ...delay }
    })
  }

  test('POST /api/build/maintenance refuses with the reason while no AkurAI-Build workspace is registered', async () => {
    const api = typedClient(stack.edge()).api
    const res = await api.build.maintenance.$post({ json: { prompt: 'maintain' } })
    const body = await errorJson(res, 409)
    assert.equal(body.error.code, 'BUILD_WORKSPACE_MISSING')
    assert.match(body.error.message, /no workspace named "AkurAI-Build" is registered/)
    workspaceId = (await Workspaces.create(db, { name: 'AkurAI-Build', path: 'akurai-build' })).id
  })

  test('a build-maintenance task records its branch, CI run, comment and delegations as evidence', async () => {
    const head = (await git(repo, 'rev-parse', 'HEAD')).trim()
    script(head)
    const api = typedClient(stack.edge()).api
    const task = await okJson(
      await api.build.maintenance.$post({
        json: { prompt: 'Keep the Build runs green.', model: 'remote/a', maxAttempts: 1 },
      }),
      201,
    )
    assert.equal(task.source, 'build-maintenance')
    assert.equal(task.workspaceId, workspaceId)
    // While it works in the checkout, a chat turn in that workspace is refused with the reason.
    await until(async () => (await row(db, task.id)).state === 'running', 20_000, 'it to run')
    const sessionId = await createSession(stack.edge(), workspaceId)
    const chat = await postChat(url, { sessionId, workspaceId, text: 'hello' })
    assert.equal(chat.status, 409)
    const refused = (await chat.json()) as { error: { code: string; message: string } }
    assert.equal(refused.error.code, 'BUILD_MAINTENANCE_RUNNING')
    assert.match(refused.error.message, /build-maintenance task is working in this workspace/)
    await until(
      async () => ['completed', 'failed', 'dead-letter'].includes((await row(db, task.id)).state),
      60_000,
      'the maintenance task to end',
    )
    const done = await row(db, task.id)
    assert.equal(done.state, 'completed', done.lastError ?? '')
    const evidence = await listBuildEvidence(db, task.id)
    // The same rows through the API.
    const served = await okJson(
      await api.tasks[':id']['build-evidence'].$get({ param: { id: task.id } }),
      200,
    )
    assert.deepEqual(served, { taskId: task.id, evidence })
    const of = (kind: string) => evidence.filter((e) => e.kind === kind)
    assert.deepEqual(
      of('checkout').map((e) => [e.reference, e.detail?.branch]),
      [[head, 'refs/heads/main']],
    )
    assert.deepEqual(
      of('ci-run').map((e) => [e.reference, e.operation, e.detail?.commit]),
      [['run-2', 'runs_queue', head]],
    )
    assert.deepEqual(
      of('branch').map((e) => e.reference),
      ['main'],
    )
    assert.deepEqual(
      of('comment').map((e) => [e.reference, e.detail?.issue]),
      [['comment-9', '7']],
    )
    assert.deepEqual(
      of('delegation').map((e) => e.reference),
      ['build-maintainer', 'reviewer', 'community-steward'],
    )
    assert.equal(of('commit').length, 0, 'HEAD did not move: nothing to accept')
    assert.ok(build.requests.some((r) => r.tool === 'runs_queue'))
    assert.ok(!JSON.stringify(evidence).includes(BUILD_TEST_KEY))
  })

  test('a build-maintenance task without the independent review fails with the reason', async () => {
    stack.gateway.respondWith((r): Reply | undefined => {
      if (!r.path.endsWith('/chat/completions')) return undefined
      if (roleOf(r) === SUPERVISOR) {
        return toolResultsOf(r).length === 0
          ? { toolCalls: [{ name: 'agent-build-maintainer', arguments: { prompt: 'Look.' } }] }
          : { text: 'Done without a review.' }
      }
      return { text: 'All green.' }
    })
    const task = await Tasks.enqueue(db, {
      source: 'build-maintenance',
      workspaceId,
      title: 'unreviewed',
      prompt: 'Look at the runs.',
      model: 'remote/a',
      maxAttempts: 1,
    })
    await until(
      async () => ['completed', 'failed', 'dead-letter'].includes((await row(db, task.id)).state),
      60_000,
      'the task to end',
    )
    const done = await row(db, task.id)
    assert.equal(done.state, 'failed')
    assert.equal(done.lastErrorClass, 'validation')
    assert.match(done.lastError ?? '', /not delegated to \(or not finished\): reviewer/)
    await until(async () => !(await activeAutonomous(db)), 30_000, 'its remediation to end')
  })

  test('build-maintenance and self-update never hold the autonomous lease together', async () => {
    // A self-update task queued for later holds the lease: build-maintenance is refused 409.
    const selfUpdate = await Tasks.enqueue(db, {
      source: 'self-update',
      workspaceId,
      title: 'self-update',
      prompt: 'improve',
      nextAttemptAt: FAR,
    })
    await assert.rejects(
      Tasks.enqueue(db, {
        source: 'build-maintenance',
        workspaceId,
        title: 'b',
        prompt: 'b',
        nextAttemptAt: FAR,
      }),
      (error: unknown) => error instanceof AutonomousTaskActive && error.status === 409,
    )
    // A build-maintenance schedule (made through the API) has its occurrence skipped with the
    // reason, not queued.
    const cron = '*/5 * * * *'
    const now = new Date()
    const schedule = await okJson(
      await typedClient(stack.edge()).api.build.maintenance.schedules.$post({
        json: { cron, prompt: 'maintain', name: 'build maintenance' },
      }),
      201,
    )
    assert.equal(schedule.source, 'build-maintenance')
    assert.equal(schedule.workspaceId, workspaceId)
    const later = new Date(now.getTime() + 6 * 60_000)
    await createScheduler({ db, log: createLogger({ write: () => {} }), now: () => later }).tick()
    const fires = await db
      .select({ outcome: scheduleFires.outcome, reason: scheduleFires.reason })
      .from(scheduleFires)
      .where(eq(scheduleFires.scheduleId, schedule.id))
      .orderBy(asc(scheduleFires.occurrenceAt))
    // Six minutes hold one or two occurrences of */5, by the clock: an earlier one is recorded as
    // missed (latest-only catch-up), and the latest is the one the lease skips.
    assert.ok(fires.length > 0, 'the occurrence was decided')
    assert.deepEqual(fires.at(-1), {
      outcome: 'skipped',
      reason: 'an autonomous task (self-update or build-maintenance) was already active',
    })
    for (const fire of fires.slice(0, -1)) {
      assert.deepEqual(fire, { outcome: 'skipped', reason: 'missed: no host was running' })
    }
    await db.update(tasks).set({ state: 'cancelled' }).where(eq(tasks.id, selfUpdate.id))
    await db.delete(schedules).where(eq(schedules.id, schedule.id))

    // And the other way: a queued build-maintenance task refuses a self-update task.
    const maintenance = await Tasks.enqueue(db, {
      source: 'build-maintenance',
      workspaceId,
      title: 'b',
      prompt: 'b',
      nextAttemptAt: FAR,
    })
    await assert.rejects(
      Tasks.enqueue(db, { source: 'self-update', workspaceId, title: 's', prompt: 's' }),
      AutonomousTaskActive,
    )
    await db.update(tasks).set({ state: 'cancelled' }).where(eq(tasks.id, maintenance.id))
  })
})

describe('build-maintenance refusals before any agent runs', () => {
  let database: TestDatabase
  let root: string
  let build: FakeBuildServer
  before(async () => {
    database = await createTestDatabase()
    root = await tempDir('build-maintenance-refusals')
    await fixtureRepo(root, 'akurai-build')
    build = await startFakeBuildServer()
  })
  after(async () => {
    await build.stop()
    await database.drop()
    await rm(root, { recursive: true, force: true })
  })

  async function attempt(
    options: { apiKey?: string; workspace: string; path: string },
    meanwhile?: (taskId: string) => Promise<void>,
  ) {
    const db = database.handle.db
    const existing = (await Workspaces.list(db)).find((w) => w.name === options.workspace)
    const workspace =
      existing ?? (await Workspaces.create(db, { name: options.workspace, path: options.path }))
    let agentsRan = 0
    const attempts = (): TaskExecutor => async () => {
      agentsRan++
      return { result: 'should not run' }
    }
    const client = createBuildClient({ url: build.url, apiKey: options.apiKey })
    const execute = createBuildMaintenanceExecutor({
      db,
      workspaceRoot: root,
      log: createLogger({ write: () => {} }),
      build: client,
      attempts,
    })
    const task = await Tasks.enqueue(db, {
      source: 'build-maintenance',
      workspaceId: workspace.id,
      title: 'maintain',
      prompt: 'maintain',
      maxAttempts: 1,
    })
    const { runner } = startRunner(database.handle, {
      execute: (t, c) =>
        t.kind === 'remediation' ? Promise.resolve({ result: 'x' }) : execute(t, c),
    })
    await runner.start()
    try {
      await meanwhile?.(task.id)
      await until(
        async () => ['completed', 'failed', 'dead-letter'].includes((await row(db, task.id)).state),
        20_000,
        'the attempt to end',
      )
      await until(async () => !(await activeAutonomous(db)), 20_000, 'the lease to free')
    } finally {
      await runner.stop()
      await client.close()
    }
    return { task: await row(db, task.id), agentsRan, workspaceId: workspace.id }
  }

  test('without AKURAI_BUILD_API_KEY a build-maintenance task is refused with the reason', async () => {
    const before = build.requests.length
    const { task, agentsRan } = await attempt({ workspace: 'AkurAI-Build', path: 'akurai-build' })
    assert.equal(task.state, 'failed')
    assert.equal(task.lastErrorClass, 'configuration')
    assert.equal(
      task.lastError,
      'build-maintenance refused: AKURAI_BUILD_API_KEY is not set: AkurAI Build is disabled',
    )
    assert.equal(agentsRan, 0)
    assert.equal(build.requests.length, before, 'no request reached Build')
  })

  test('queueing is refused with the reason while Build is disabled', async () => {
    await assert.rejects(
      queueBuildMaintenance(
        database.handle.db,
        { prompt: 'maintain' },
        'AKURAI_BUILD_API_KEY is not set: AkurAI Build is disabled',
      ),
      (error: unknown) =>
        error instanceof BuildDisabled &&
        error.status === 409 &&
        error.message === 'AKURAI_BUILD_API_KEY is not set: AkurAI Build is disabled',
    )
  })

  test('outside the AkurAI-Build workspace a build-maintenance task is refused with the reason', async () => {
    const { task, agentsRan } = await attempt({
      apiKey: BUILD_TEST_KEY,
      workspace: 'elsewhere',
      path: 'akurai-build',
    })
    assert.equal(task.lastErrorClass, 'configuration')
    assert.match(
      task.lastError ?? '',
      /runs only in the registered "AkurAI-Build" workspace, not "elsewhere"/,
    )
    assert.equal(agentsRan, 0)
  })

  test('while a chat turn is live in the AkurAI-Build workspace the attempt waits', async () => {
    const db = database.handle.db
    const workspace = (await Workspaces.list(db)).find((w) => w.name === 'AkurAI-Build')!
    const sessionId = createId('session')
    await db
      .insert(sessions)
      .values({ id: sessionId, workspaceId: workspace.id, title: 'chat' } as never)
    await db.insert(liveTurns).values({ sessionId, turnId: 'turn-1', host: 'test', message: {} })
    let waited: Tasks.TaskRow | undefined
    const { task, agentsRan } = await attempt(
      { apiKey: BUILD_TEST_KEY, workspace: 'AkurAI-Build', path: 'akurai-build' },
      async (taskId) => {
        // Refused while the turn is live, queued again (a transient class), and again …
        await until(async () => (await row(db, taskId)).attemptCount >= 2, 20_000, 'two tries')
        waited = await row(db, taskId)
        // … until the turn ends: then the agents run.
        await db.delete(liveTurns).where(eq(liveTurns.sessionId, sessionId))
      },
    )
    assert.equal(waited?.lastErrorClass, 'interrupted')
    assert.match(waited?.lastError ?? '', /a chat turn is running in "AkurAI-Build"/)
    assert.equal(agentsRan, 1, 'the agents ran once the chat turn had ended')
    // The stand-in attempt delegated to nobody: the completion policy says so.
    assert.match(
      task.lastError ?? '',
      /not delegated to \(or not finished\): build-maintainer, reviewer/,
    )
  })
})

describe('build-maintenance checkout acceptance (real git)', () => {
  test('the same commit or a descendant within the patch policy is accepted; a rewrite, a branch switch, a remote change, leftovers or a protected path are refused', async () => {
    const root = await tempDir('build-acceptance')
    try {
      const repo = await fixtureRepo(root, 'r')
      let start = await readCheckout(repo)
      assert.equal((await acceptCheckout(start)).commit, undefined)
      await git(repo, 'commit', '--quiet', '--allow-empty', '-m', 'maintenance')
      const child = (await git(repo, 'rev-parse', 'HEAD')).trim()
      assert.equal((await acceptCheckout(start)).commit, child)

      start = await readCheckout(repo)
      await git(repo, 'reset', '--quiet', '--hard', 'HEAD~1')
      await git(repo, 'commit', '--quiet', '--allow-empty', '-m', 'rewritten')
      await assert.rejects(acceptCheckout(start), /is not a descendant of .*history was rewritten/)

      start = await readCheckout(repo)
      await git(repo, 'switch', '--quiet', '-c', 'other')
      await assert.rejects(
        acceptCheckout(start),
        /HEAD moved from refs\/heads\/main to refs\/heads\/other/,
      )
      await git(repo, 'switch', '--quiet', 'main')

      start = await readCheckout(repo)
      await git(repo, 'remote', 'add', 'origin', 'https://example.com/x.git')
      await assert.rejects(acceptCheckout(start), /the remotes or remote-tracking refs changed/)

      start = await readCheckout(repo)
      await git(repo, 'commit', '--quiet', '--allow-empty', '-m', 'ok')
      const { writeFile } = await import('node:fs/promises')
      await writeFile(`${repo}/left.txt`, 'left behind\n')
      await assert.rejects(acceptCheckout(start), /uncommitted or untracked change\(s\) were left/)
      await rm(`${repo}/left.txt`)

      // The commits' change passes self-update's patch policy: documentation is fine …
      start = await readCheckout(repo)
      await writeFile(`${repo}/docs-maintenance.md`, '# Runs\n\nAll green.\n')
      await git(repo, 'add', 'docs-maintenance.md')
      await git(repo, 'commit', '--quiet', '-m', 'docs')
      assert.equal(
        (await acceptCheckout(start)).commit,
        (await git(repo, 'rev-parse', 'HEAD')).trim(),
      )
      // … a CI definition (a protected path) is refused, naming the file.
      start = await readCheckout(repo)
      const { mkdir } = await import('node:fs/promises')
      await mkdir(`${repo}/.github/workflows`, { recursive: true })
      await writeFile(`${repo}/.github/workflows/ci.yml`, 'on: push\n')
      await git(repo, 'add', '.github')
      await git(repo, 'commit', '--quiet', '-m', 'ci')
      await assert.rejects(
        acceptCheckout(start),
        /PATCH_POLICY_REFUSED: .*\.github\/workflows\/ci\.yml/,
      )
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  })
})

async function activeAutonomous(db: Db): Promise<boolean> {
  const rows = await db.select({ state: tasks.state, source: tasks.source }).from(tasks)
  return rows.some(
    (r) =>
      (r.source === 'self-update' || r.source === 'build-maintenance') &&
      ['queued', 'running', 'cancelling'].includes(r.state),
  )
}
