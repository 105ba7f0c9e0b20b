/**
 * The task page shows a self-update task's workflow (issue 24): every phase with its state and
 * evidence, the skipped ones after a no-op, a failed one with its error, and the patch with the
 * digest the reviewer echoed. Real stack, real browser; the phases are written by the same
 * `recordPhase` the workflow uses.
 */
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { WorkflowPhase } from '../db/self-update-enums.ts'
import { recordPhase } from '../runtime/self-update/phase-store.ts'
import { tasks } from '../db/schema/index.ts'
import { createId } from '../runtime/ids.ts'
import {
  browserMissing,
  launchBrowser,
  screenshotBoth,
  VIEWPORTS,
  type Browser,
} from './support/browser.ts'
import { startTestStack, type TestStack } from './support/stack.ts'

const DIGEST = 'ab'.repeat(32)
const PATCH = 'diff --git a/docs/greet.md b/docs/greet.md\nnew file mode 100644\n+# greet\n'

describe('self-update workflow on the task page', { skip: browserMissing }, () => {
  let stack: TestStack
  let root: string
  let browser: Browser
  let url: string
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'popagent-ui-self-update-'))
    await mkdir(join(root, 'popagent'))
    stack = await startTestStack({ hostEnv: { POPAGENT_WORKSPACE_ROOT: root } })
    url = await stack.listen()
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await stack?.stop()
    await rm(root, { recursive: true, force: true })
  })

  async function taskWithPhases(
    title: string,
    phases: [
      WorkflowPhase,
      'completed' | 'failed' | 'skipped',
      Record<string, unknown> | null,
      string?,
    ][],
  ) {
    const db = stack.host.resources.databases.application.db
    // Inserted as already ended, so the host's runner never claims it.
    const [task] = await db
      .insert(tasks)
      .values({
        id: createId('task'),
        source: 'self-update',
        workspaceId: 'wsp_default',
        title,
        prompt: 'improve the docs',
        state: phases.some(([, s]) => s === 'failed') ? 'failed' : 'completed',
      })
      .returning()
    for (const [phase, state, output, error] of phases) {
      await recordPhase(db, {
        taskId: task!.id,
        attempt: 1,
        phase,
        state,
        output,
        error: error ?? null,
      })
    }
    return task!.id
  }

  test('a committed change: eight phases, the patch and its digest', async () => {
    const ctx = {
      taskId: 't',
      goal: 'g',
      repo: '/r',
      baseSha: '1'.repeat(40),
      branch: 'autonomous/self-update/t',
      workTree: '/w',
      gitDir: '/g',
    }
    const plan = {
      summary: 'document greet',
      steps: ['add docs/greet.md'],
      files: ['docs/greet.md'],
    }
    const id = await taskWithPhases('Self-update: docs', [
      ['prepare', 'completed', { ctx }],
      [
        'research',
        'completed',
        {
          ctx,
          iterations: 2,
          report: { findings: [{ claim: 'c', evidence: [] }], openQuestions: [], done: true },
        },
      ],
      [
        'decide',
        'completed',
        { ctx, decision: { kind: 'change', reason: 'greet is undocumented', plan } },
      ],
      ['implement', 'completed', { ctx, plan, stepsUsed: 3, summary: 'added docs/greet.md' }],
      [
        'inspect-change',
        'completed',
        { ctx, plan, treeSha: '2'.repeat(40), digest: DIGEST, files: [], patch: PATCH },
      ],
      [
        'verify',
        'completed',
        { checks: [{ id: 'npm test', exitCode: 0, passed: true, tail: '' }], allPassed: true },
      ],
      [
        'review',
        'completed',
        {
          review: { digest: DIGEST, verdict: 'approve', testIntegrity: 'unchanged', findings: [] },
        },
      ],
      [
        'commit',
        'completed',
        {
          outcome: 'committed',
          commitSha: '3'.repeat(40),
          ref: 'refs/heads/autonomous/self-update/t',
          digest: DIGEST,
          reason: 'document greet',
        },
      ],
    ])
    const page = await browser.page()
    await page.goto(`${url}/#/tasks/${id}`)
    const phases = page.getByRole('list', { name: 'Workflow phases' }).locator('> li')
    await phases.first().waitFor()
    assert.equal(await phases.count(), 8)
    assert.deepEqual(await phases.locator('strong').allInnerTexts(), [
      'prepare',
      'research',
      'decide',
      'implement',
      'inspect-change',
      'verify',
      'review',
      'commit',
    ])
    const text = await page.getByRole('list', { name: 'Workflow phases' }).innerText()
    assert.match(text, /change: greet is undocumented/)
    assert.match(text, new RegExp(`approve, echoed digest ${DIGEST}`))
    assert.match(text, /refs\/heads\/autonomous\/self-update\/t at 3{40}/)
    assert.match(text, new RegExp(`Patch digest ${DIGEST}`))
    await page.getByText('Patch', { exact: true }).click()
    assert.match(await page.locator('.phase-inspect-change pre').innerText(), /\+# greet/)
    await screenshotBoth(page, 'self-update-workflow-committed')
    await page.setViewportSize(VIEWPORTS.phone)
    const width = await page.evaluate(() => document.documentElement.scrollWidth)
    assert.ok(width <= VIEWPORTS.phone.width, `${width}px wide at phone width`)
  })

  test('a no-op shows the skipped phases; a refusal shows its error', async () => {
    const ctx = {
      taskId: 't',
      goal: 'g',
      repo: '/r',
      baseSha: '1'.repeat(40),
      branch: 'b',
      workTree: '/w',
      gitDir: '/g',
    }
    const noop = await taskWithPhases('Self-update: nothing', [
      ['prepare', 'completed', { ctx }],
      [
        'research',
        'completed',
        { ctx, iterations: 5, report: { findings: [], openQuestions: [], done: false } },
      ],
      [
        'decide',
        'completed',
        { ctx, decision: { kind: 'noop', reason: 'nothing worth changing', plan: null } },
      ],
      ...(['implement', 'inspect-change', 'verify', 'review', 'commit'] as const).map(
        (p) => [p, 'skipped', null] as [WorkflowPhase, 'skipped', null],
      ),
    ])
    const page = await browser.page()
    await page.goto(`${url}/#/tasks/${noop}`)
    const list = page.getByRole('list', { name: 'Workflow phases' })
    await list.waitFor()
    const text = await list.innerText()
    assert.match(text, /noop: nothing worth changing/)
    assert.equal((text.match(/skipped: the decision was to change nothing/g) ?? []).length, 5)
    await screenshotBoth(page, 'self-update-workflow-noop')

    const refused = await taskWithPhases('Self-update: refused', [
      ['prepare', 'failed', null, 'CHECKOUT_DIRTY: the repository has 1 uncommitted change'],
    ])
    await page.goto(`${url}/#/tasks/${refused}`)
    // The same page with another task: wait for this task's phase, not the previous list.
    const prepare = page.locator('.phase-prepare', { hasText: 'CHECKOUT_DIRTY' })
    await prepare.waitFor()
    assert.match(await prepare.innerText(), /the repository has 1 uncommitted change/)
  })
})
