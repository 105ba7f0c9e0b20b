/**
 * The self-update workflow end to end (issue 24, S2) on a fixture repository: a real task runner
 * claims a `self-update` task, the executor runs the Mastra workflow against the scripted gateway,
 * checks run in the bubblewrap sandbox, and an approved change lands as a local ref in the fixture
 * repository. One suite, run on PostgreSQL and on the embedded database.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { and, eq, inArray } from '../db/drizzle-orm.ts'
import type { Db } from '../db/index.ts'
import { tasks } from '../db/schema/index.ts'
import type { DatabaseHandle } from '../compute-host/database/handle.ts'
import { createAdmissionQueue } from '../compute-host/models/admission-queue.ts'
import { createGatewayModels } from '../compute-host/models/gateway-models.ts'
import { createSelfUpdateExecutor, selfUpdateOr } from '../compute-host/self-update/executor.ts'
import type { TaskExecutor } from '../compute-host/tasks/runner.ts'
import * as Settings from '../runtime/settings/index.ts'
import { createLogger } from '../compute-host/log.ts'
import { HostMastraLogger } from '../compute-host/agents/mastra-logger.ts'
import { checkSandbox } from '../compute-host/workspaces/sandbox-check.ts'
import { createRedactor } from '../runtime/redaction.ts'
import * as Tasks from '../runtime/tasks/index.ts'
import * as Workspaces from '../runtime/workspaces/index.ts'
import {
  startScriptedGateway,
  type RecordedRequest,
  type Reply,
  type ScriptedGateway,
} from './support/scripted-gateway.ts'
import { fixtureRepo, git, snapshot, tempDir } from './support/self-update-repo.ts'
import { add, row, startRunner, until } from './support/task-runner.ts'

async function activeSelfUpdate(db: Db): Promise<number> {
  const rows = await db
    .select({ id: tasks.id })
    .from(tasks)
    .where(
      and(
        eq(tasks.source, 'self-update'),
        inArray(tasks.state, ['queued', 'running', 'cancelling']),
      ),
    )
  return rows.length
}

type Phase = 'research' | 'decide' | 'implement' | 'review'
type Script = Partial<Record<Phase, (request: RecordedRequest, nth: number) => Reply>>

const PHASE_OF: [RegExp, Phase][] = [
  [/^You research/, 'research'],
  [/^You decide/, 'decide'],
  [/^You make the planned change/, 'implement'],
  [/^You review/, 'review'],
]

function systemText(request: RecordedRequest): string {
  const first = request.body?.messages?.[0]
  return typeof first?.content === 'string' ? first.content : JSON.stringify(first?.content ?? '')
}
function lastUserText(request: RecordedRequest): string {
  const users = (request.body?.messages ?? []).filter((m: { role: string }) => m.role === 'user')
  const last = users.at(-1)?.content
  return typeof last === 'string' ? last : JSON.stringify(last ?? '')
}
const json = (value: unknown): Reply => ({ text: JSON.stringify(value) })

const RESEARCH_DONE: Script['research'] = () =>
  json({
    findings: [{ claim: 'greet has no docs', evidence: [{ path: 'src/greet.ts', lines: '1-3' }] }],
    openQuestions: [],
    done: true,
  })
const DECIDE_CHANGE: Script['decide'] = () =>
  json({
    kind: 'change',
    reason: 'document greet',
    plan: { summary: 'document greet', steps: ['add docs/greet.md'], files: ['docs/greet.md'] },
  })
const IMPLEMENT_DOCS: Script['implement'] = (request) =>
  (request.body.messages as { role: string }[]).some((m) => m.role === 'tool')
    ? json({ summary: 'added docs/greet.md' })
    : {
        toolCalls: [
          {
            name: 'workspace-write',
            arguments: { path: 'docs/greet.md', content: '# greet\n\nSays hello.\n' },
          },
        ],
      }
const REVIEW_ECHO: Script['review'] = (request) =>
  json({
    digest: /Digest: ([0-9a-f]{64})/.exec(lastUserText(request))![1],
    verdict: 'approve',
    testIntegrity: 'unchanged',
    findings: [],
  })

export function selfUpdateWorkflowSuite(
  name: string,
  open: () => Promise<{
    handle: Pick<DatabaseHandle, 'db' | 'listen'>
    close: () => Promise<void>
  }>,
) {
  describe(name, () => {
    let database: Awaited<ReturnType<typeof open>>
    let db: Db
    let gateway: ScriptedGateway
    let root: string
    let sandbox: Awaited<ReturnType<typeof checkSandbox>>
    const counts = new Map<Phase, number>()
    let script: Script = {}
    const mastraLines: string[] = []

    before(async () => {
      database = await open()
      db = database.handle.db
      root = await tempDir('self-update-wf')
      sandbox = await checkSandbox()
      await Settings.autonomy.patch(db, { selfUpdateEnabled: true })
      gateway = await startScriptedGateway()
      gateway.respondWith((request) => {
        if (!request.path.endsWith('/chat/completions')) return undefined
        const phase = PHASE_OF.find(([pattern]) => pattern.test(systemText(request)))?.[1]
        if (!phase) return { status: 500, message: 'unexpected request' }
        const nth = (counts.get(phase) ?? 0) + 1
        counts.set(phase, nth)
        const reply = script[phase]
        return reply ? reply(request, nth) : { status: 500, message: `no script for ${phase}` }
      })
    })
    after(async () => {
      await gateway.close()
      await database.close()
      await rm(root, { recursive: true, force: true })
    })

    async function runTask(repoName: string, prepare?: (repo: string) => Promise<void>) {
      counts.clear()
      const repo = await fixtureRepo(root, repoName)
      if (prepare) await prepare(repo)
      const workspace = await Workspaces.create(db, { name: repoName, path: repoName })
      const log = createLogger({ write: (line) => void mastraLines.push(line) })
      const models = createGatewayModels({
        url: gateway.url,
        localModels: { queue: createAdmissionQueue(1), isLocal: () => false },
      })
      const execute = createSelfUpdateExecutor({
        db,
        workspaceRoot: root,
        log,
        models,
        sandbox,
        verifyCommands: [[process.execPath, 'test/greet.test.ts']],
        checkLimitMs: 30_000,
        redact: createRedactor([]),
        mastraLogger: new HostMastraLogger(log),
      })
      const before = await snapshot(repo)
      const task = await add(db, 'document the greet function', {
        source: 'self-update',
        workspaceId: workspace.id,
        model: 'test/model',
        maxAttempts: 1,
      })
      // Remediations of the failures below are not under test here: they end at once.
      const other: TaskExecutor = async () => ({ result: 'not under test' })
      const { runner } = startRunner(database.handle, {
        execute: selfUpdateOr(execute, other),
        timing: { timeoutMs: 60_000 },
      })
      await runner.start()
      try {
        await until(
          async () => ['completed', 'failed'].includes((await row(db, task.id)).state),
          60_000,
          'the task to end',
        )
        // A failure's remediation (self-update too, so it holds the one slot) ends before the
        // next test queues its task.
        await until(async () => (await activeSelfUpdate(db)) === 0, 10_000, 'the slot to free')
      } finally {
        await runner.stop()
      }
      const view = await Tasks.workflow(db, task.id)
      return { repo, task: await row(db, task.id), view, before }
    }

    test('an approved change lands as a local ref whose patch digest is the reviewed one', async () => {
      if (!sandbox.available) throw new Error(`the sandbox is needed for verify: ${sandbox.reason}`)
      script = {
        research: RESEARCH_DONE,
        decide: DECIDE_CHANGE,
        implement: IMPLEMENT_DOCS,
        review: REVIEW_ECHO,
      }
      const { repo, task, view, before } = await runTask('happy')
      assert.equal(task.state, 'completed', task.lastError ?? '')
      assert.deepEqual(
        view.phases.map((p) => [p.name, p.state]),
        [
          'prepare',
          'research',
          'decide',
          'implement',
          'inspect-change',
          'verify',
          'review',
          'commit',
        ].map((n) => [n, 'completed']),
      )
      const phase = (n: string) =>
        view.phases.find((p) => p.name === n)!.output as Record<string, any>
      const ref = `refs/heads/autonomous/self-update/${task.id}`
      assert.equal(phase('commit').ref, ref)
      const base = (await git(repo, 'rev-parse', 'main')).trim()
      assert.equal((await git(repo, 'rev-parse', `${ref}^`)).trim(), base)
      const ownerPatch = await git(
        repo,
        'diff',
        '--binary',
        '--full-index',
        '--no-renames',
        '-U3',
        base,
        ref,
        '--',
      )
      const digest = createHash('sha256')
        .update(`popagent.selfupdate.v1\nbase ${base}\n`)
        .update(ownerPatch)
        .digest('hex')
      assert.equal(
        phase('review').review.digest,
        digest,
        'the reviewer echoed the digest of what landed',
      )
      assert.equal(phase('inspect-change').digest, digest)
      assert.equal(await git(repo, 'show', `${ref}:docs/greet.md`), '# greet\n\nSays hello.\n')
      assert.equal(phase('verify').checks[0].passed, true)
      assert.equal(await snapshot(repo), before, 'the owner’s work tree and index are untouched')
      assert.match(task.result ?? '', new RegExp(`Committed [0-9a-f]{40} as ${ref}`))
      assert.equal(counts.get('research'), 1)
    })

    test('a no-op decision completes and skips implement through commit', async () => {
      script = {
        research: () => json({ findings: [], openQuestions: [], done: false }),
        decide: () => json({ kind: 'noop', reason: 'nothing worth changing', plan: null }),
      }
      const { repo, task, view } = await runTask('noop')
      assert.equal(task.state, 'completed', task.lastError ?? '')
      assert.equal(task.result, 'No change: nothing worth changing')
      assert.deepEqual(
        view.phases.map((p) => [p.name, p.state]),
        [
          ['prepare', 'completed'],
          ['research', 'completed'],
          ['decide', 'completed'],
          ['implement', 'skipped'],
          ['inspect-change', 'skipped'],
          ['verify', 'skipped'],
          ['review', 'skipped'],
          ['commit', 'skipped'],
        ],
      )
      assert.equal(
        counts.get('research'),
        5,
        'a researcher that is never done gets exactly five iterations',
      )
      assert.equal(counts.get('implement'), undefined)
      assert.equal(counts.get('review'), undefined)
      assert.equal((await git(repo, 'for-each-ref', 'refs/heads/autonomous')).trim(), '')
    })

    test('a reviewer echoing another digest is refused and no ref is written', async () => {
      if (!sandbox.available) throw new Error(`the sandbox is needed for verify: ${sandbox.reason}`)
      script = {
        research: RESEARCH_DONE,
        decide: DECIDE_CHANGE,
        implement: IMPLEMENT_DOCS,
        review: () =>
          json({
            digest: 'e'.repeat(64),
            verdict: 'approve',
            testIntegrity: 'unchanged',
            findings: [],
          }),
      }
      const { repo, task, view } = await runTask('wrong-digest')
      assert.equal(task.state, 'failed')
      assert.match(task.lastError ?? '', /REVIEW_DIGEST_MISMATCH/)
      assert.equal(view.phases.find((p) => p.name === 'review')?.state, 'failed')
      assert.equal(
        view.phases.find((p) => p.name === 'commit'),
        undefined,
      )
      assert.ok(
        mastraLines.some((line) => line.includes('"source":"mastra"')),
        'Mastra reported the failed step into the host log, not the console',
      )
      assert.equal((await git(repo, 'for-each-ref', 'refs/heads/autonomous')).trim(), '')
    })

    test('a change to a protected path is refused at inspection: no check runs, no reviewer asked', async () => {
      script = {
        research: RESEARCH_DONE,
        decide: DECIDE_CHANGE,
        implement: (request) =>
          (request.body.messages as { role: string }[]).some((m) => m.role === 'tool')
            ? json({ summary: 'tuned CI' })
            : {
                toolCalls: [
                  {
                    name: 'workspace-write',
                    arguments: { path: '.github/workflows/deploy.yml', content: 'on: push\n' },
                  },
                ],
              },
        review: REVIEW_ECHO,
      }
      const { repo, task, view } = await runTask('protected')
      assert.equal(task.state, 'failed')
      assert.equal(task.lastErrorClass, 'containment')
      assert.match(
        task.lastError ?? '',
        /PATCH_POLICY_REFUSED: .*\.github\/workflows\/deploy\.yml is protected/,
      )
      assert.deepEqual(view.phases.at(-1)?.name, 'inspect-change')
      assert.equal(counts.get('review'), undefined)
      assert.equal((await git(repo, 'for-each-ref', 'refs/heads/autonomous')).trim(), '')
    })

    test('a failing check stops the run before review', async () => {
      if (!sandbox.available) throw new Error(`the sandbox is needed for verify: ${sandbox.reason}`)
      script = {
        research: RESEARCH_DONE,
        decide: DECIDE_CHANGE,
        // An existing file is read before it is written (the file tools insist).
        implement: (request) => {
          const done = (request.body.messages as { role: string }[]).filter(
            (m) => m.role === 'tool',
          ).length
          if (done === 0)
            return { toolCalls: [{ name: 'workspace-read', arguments: { path: 'src/greet.ts' } }] }
          if (done === 1) {
            const content = "export function greet(name: string) {\n  return 'bye ' + name\n}\n"
            return {
              toolCalls: [
                { name: 'workspace-write', arguments: { path: 'src/greet.ts', content } },
              ],
            }
          }
          return json({ summary: 'broke greet' })
        },
        review: REVIEW_ECHO,
      }
      const { task, view } = await runTask('broken')
      assert.equal(task.state, 'failed')
      assert.equal(task.lastErrorClass, 'validation')
      assert.match(task.lastError ?? '', /verify: .*greet\.test\.ts exited 1/)
      assert.equal(view.phases.find((p) => p.name === 'verify')?.state, 'failed')
      assert.equal(counts.get('review'), undefined, 'the reviewer was never asked')
    })

    test('verify checks the inspected tree only: a file the patch leaves out (ignored) is not there', async () => {
      if (!sandbox.available) throw new Error(`the sandbox is needed for verify: ${sandbox.reason}`)
      script = {
        research: RESEARCH_DONE,
        decide: DECIDE_CHANGE,
        implement: (request) => {
          const done = (request.body.messages as { role: string }[]).filter(
            (m) => m.role === 'tool',
          ).length
          const helper = "export const word = 'hello '\n"
          const greet =
            "import { word } from '../ignored/word.ts'\nexport function greet(name: string) {\n  return word + name\n}\n"
          if (done === 0)
            return {
              toolCalls: [
                {
                  name: 'workspace-write',
                  arguments: { path: 'ignored/word.ts', content: helper },
                },
              ],
            }
          if (done === 1)
            return { toolCalls: [{ name: 'workspace-read', arguments: { path: 'src/greet.ts' } }] }
          if (done === 2)
            return {
              toolCalls: [
                { name: 'workspace-write', arguments: { path: 'src/greet.ts', content: greet } },
              ],
            }
          return json({ summary: 'greet through a helper' })
        },
        review: REVIEW_ECHO,
      }
      const { task, view } = await runTask('ignored-helper')
      const inspected = view.phases.find((p) => p.name === 'inspect-change')!.output as {
        files: { path: string }[]
      }
      assert.deepEqual(
        inspected.files.map((f) => f.path),
        ['src/greet.ts'],
        'the ignored helper is not in the patch',
      )
      assert.equal(task.state, 'failed', 'the check ran without the helper, as the import would')
      assert.match(task.lastError ?? '', /verify: .*exited/)
      assert.equal(counts.get('review'), undefined)
    })

    test('an implementer repeating the same call a third time is stopped', async () => {
      script = {
        research: RESEARCH_DONE,
        decide: DECIDE_CHANGE,
        implement: () => ({ toolCalls: [{ name: 'workspace-list', arguments: { path: '.' } }] }),
        review: REVIEW_ECHO,
      }
      const { task, view } = await runTask('repeating')
      assert.equal(task.state, 'failed')
      assert.equal(task.lastErrorClass, 'validation')
      assert.match(
        task.lastError ?? '',
        /implement stopped: the agent called workspace-list with the same arguments 3 times/,
      )
      assert.equal(view.phases.at(-1)?.name, 'implement')
      assert.equal(
        counts.get('implement'),
        3,
        'three model turns, the third call refused and the phase ended',
      )
    })

    test('prose at decide fails the task there', async () => {
      script = {
        research: RESEARCH_DONE,
        decide: () => ({ text: 'I think we should document it.' }),
      }
      const { task, view } = await runTask('prose')
      assert.equal(task.state, 'failed')
      assert.equal(task.lastErrorClass, 'validation')
      assert.match(task.lastError ?? '', /decide phase answered prose/)
      assert.equal(view.phases.at(-1)?.name, 'decide')
    })

    test('with self-update off in the autonomy settings nothing runs', async () => {
      await Settings.autonomy.patch(db, { selfUpdateEnabled: false })
      try {
        script = { research: RESEARCH_DONE }
        const { task, view } = await runTask('disabled')
        assert.equal(task.state, 'failed')
        assert.equal(task.lastErrorClass, 'configuration')
        assert.match(task.lastError ?? '', /self-update is off/)
        assert.deepEqual(view.phases, [])
        assert.equal(counts.size, 0)
      } finally {
        await Settings.autonomy.patch(db, { selfUpdateEnabled: true })
      }
    })

    test('a dirty checkout is refused before any model call', async () => {
      script = { research: RESEARCH_DONE }
      const { task, view } = await runTask('dirty', (repo) =>
        writeFile(join(repo, 'scratch.txt'), 'wip\n'),
      )
      assert.equal(task.state, 'failed')
      assert.equal(task.lastErrorClass, 'containment')
      assert.match(task.lastError ?? '', /CHECKOUT_DIRTY/)
      assert.deepEqual(
        view.phases.map((p) => [p.name, p.state]),
        [['prepare', 'failed']],
      )
      assert.equal(counts.size, 0, 'no phase reached the gateway')
    })
  })
}
