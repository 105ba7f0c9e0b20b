/**
 * The admin pages (tasks, task detail, schedules, agents, settings) in a real browser against a
 * real popagent: tasks run through the agents on the scripted gateway, cron expressions are
 * checked by the compute host, and every edit is read back after a reload. Also the cron preview
 * route the schedules page uses, and the API-key prompt.
 */
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { Locator, Page } from 'playwright-core'
import { serverTimezone } from '../compute-host/schedules/cron.ts'
import { scheduleFires } from '../db/schema/index.ts'
import { createTestApp, json } from './support/app.ts'
import {
  browserMissing,
  launchBrowser,
  screenshotBoth,
  VIEWPORTS,
  type Browser,
} from './support/browser.ts'
import type { RecordedRequest } from './support/scripted-gateway.ts'
import { messagesOf, offeredTools, toolResultsOf } from './support/chat.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { errorJson, okJson, typedClient } from './support/typed-client.ts'

const API_KEY = 'ui-admin-api-key-0123456789'

/** The task prompt a gateway request belongs to (its first user message). */
const promptOf = (r: RecordedRequest): string => {
  const user = messagesOf(r).find((m) => m.role === 'user')
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '')
}

describe('admin pages', () => {
  let stack: TestStack
  let root: string
  const api = (path: string, init: RequestInit = {}) => stack.edge().request(path, init)
  const client = () => typedClient(stack.edge())

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'popagent-ui-admin-'))
    await mkdir(join(root, 'popagent'))
    stack = await startTestStack({
      models: [
        { id: 'remote/a', contextWindow: 128000 },
        { id: 'remote/b', contextWindow: 32000 },
      ],
      hostEnv: { POPAGENT_WORKSPACE_ROOT: root },
    })
    const settings = await api(
      '/api/settings/agent-runtime',
      json({ configuredModel: 'remote/a', modelSource: 'configured' }, { method: 'PATCH' }),
    )
    assert.equal(settings.status, 200, await settings.text())
    stack.gateway.respondWith((r) => {
      const prompt = promptOf(r)
      if (prompt.startsWith('Background task')) return { text: 'investigated: a gateway refusal' }
      if (prompt.includes('take your time')) return { text: 'late', delayMs: 20_000 }
      if (prompt.includes('break please')) return { status: 400, message: 'scripted refusal' }
      if (prompt.includes('delegate please')) {
        const tools = offeredTools(r)
        const answered = toolResultsOf(r).length > 0
        if (!tools.includes('agent-researcher')) return { text: 'The repository has one package.' }
        if (!answered) {
          return {
            delayMs: 1_000,
            toolCalls: [{ name: 'agent-researcher', arguments: { prompt: 'list the packages' } }],
          }
        }
        return { text: 'done: the researcher found one package, popagent.' }
      }
      return { text: 'done' }
    })
  })
  after(async () => {
    await stack?.stop()
    await rm(root, { recursive: true, force: true })
  })

  test('POST /api/schedules/preview answers the next occurrences, croner’s message, or a 503', async () => {
    const body = await okJson(
      await client().api.schedules.preview.$post({ json: { cron: '0 9 * * 1' } }),
      200,
    )
    assert.equal(body.timezone, serverTimezone())
    assert.equal(body.next.length, 5)
    // The test process shares the host's timezone: every occurrence is a Monday at 09:00 there.
    for (const at of body.next.map((iso: string) => new Date(iso))) {
      assert.deepEqual([at.getDay(), at.getHours(), at.getMinutes()], [1, 9, 0])
    }
    const refusal = await errorJson(
      await client().api.schedules.preview.$post({ json: { cron: '61 * * * *' } }),
      400,
    )
    assert.equal(refusal.error.code, 'INVALID_CRON')
    assert.match(refusal.error.message, /minute: 61/)
    const unknown = await api(
      '/api/schedules/preview',
      json({ cron: '* * * * *', tz: 'UTC' }, { method: 'POST' }),
    )
    assert.equal(unknown.status, 400)
    const hostDown = createTestApp({ db: stack.database.db })
    const down = await hostDown.request(
      '/api/schedules/preview',
      json({ cron: '0 9 * * 1' }, { method: 'POST' }),
    )
    assert.equal((await errorJson(down, 503)).error.code, 'COMPUTE_HOST_UNAVAILABLE')
  })

  describe('in a browser', { skip: browserMissing }, () => {
    let browser: Browser
    let url: string
    let page: Page
    before(async () => {
      url = await stack.listen()
      browser = await launchBrowser()
      page = await browser.page()
      page.setDefaultTimeout(20_000)
    })
    after(() => browser?.close())

    /** Screenshots at both widths, and the phone width never scrolls sideways. */
    const shoot = async (name: string) => {
      await screenshotBoth(page, name)
      const original = page.viewportSize()
      await page.setViewportSize(VIEWPORTS.phone)
      const width = await page.evaluate(() => document.documentElement.scrollWidth)
      assert.ok(width <= VIEWPORTS.phone.width, `${name} is ${width}px wide at phone width`)
      if (original) await page.setViewportSize(original)
    }
    const taskRow = (title: string) =>
      page.locator('tr', { has: page.getByRole('link', { name: title, exact: true }) })
    const stateOf = (row: Locator) => row.locator('td').nth(1).innerText()
    const detailState = () => page.locator('.page-head .badge').innerText()
    const waitForDetailState = (state: string) =>
      page.locator('.page-head .badge', { hasText: new RegExp(`^${state}$`) }).waitFor()
    const queueTask = async (prompt: string) => {
      await page.goto(`${url}/#/tasks`)
      await page.getByLabel('Prompt').fill(prompt)
      await page.getByRole('button', { name: 'Queue task' }).click()
      await taskRow(prompt).waitFor()
    }

    test('a setting edit persists after a reload, and a refused value names its field', async () => {
      await page.goto(`${url}/#/settings`)
      const steps = page.getByLabel('Supervisor max steps')
      await steps.fill('30')
      // Deployment is a real switch now: it adds self-update's deploy step, which refuses with
      // its reason (docs/self-update.md), and the page says so.
      assert.equal(await page.getByLabel('Deployment', { exact: true }).isDisabled(), false)
      await page
        .getByText(/Adds a deploy step to each self-update run\. It refuses every time/)
        .waitFor()
      await page.getByLabel('Automatic fact retention').check()
      await page.getByRole('button', { name: 'Save agent runtime' }).click()
      await page.getByText('Saved: Supervisor max steps.').waitFor()
      await page.getByRole('button', { name: 'Save autonomy' }).click()
      await page.getByText('Saved: Automatic fact retention.').waitFor()
      await page.reload()
      await page.getByText('Effective default model').waitFor()
      assert.equal(await page.getByLabel('Supervisor max steps').inputValue(), '30')
      assert.equal(await page.getByLabel('Automatic fact retention').isChecked(), true)
      assert.equal(await page.getByLabel('Configured model').inputValue(), 'remote/a')
      const options = await page.getByLabel('Local model').locator('option').allInnerTexts()
      assert.ok(options.includes('remote/a') && options.includes('remote/b'), options.join())
      const stored = await okJson(await client().api.settings['agent-runtime'].$get())
      assert.equal(stored.supervisorMaxSteps, 30)
      // The embedding model is chosen here (docs search names this place), and `none` is null.
      const embedding = page.getByLabel('Embedding model')
      assert.equal(await embedding.inputValue(), '')
      await embedding.selectOption('remote/b')
      await page.getByRole('button', { name: 'Save memory' }).click()
      await page.getByText('Saved: Embedding model.').waitFor()
      const memory = () => client().api.settings.memory.$get()
      assert.equal((await okJson(await memory())).embeddingModel, 'remote/b')
      await embedding.selectOption('')
      await page.getByRole('button', { name: 'Save memory' }).click()
      await page.getByText('Saved: Embedding model.').waitFor()
      assert.equal((await okJson(await memory())).embeddingModel, null)
      await shoot('settings')

      await page.getByLabel('Supervisor max steps').fill('500')
      await page.getByRole('button', { name: 'Save agent runtime' }).click()
      const alert = page.getByRole('alert').filter({ hasText: 'Not saved' })
      await alert.waitFor()
      assert.match(await alert.innerText(), /Supervisor max steps: .*200/)
      assert.equal(
        (await okJson(await client().api.settings['agent-runtime'].$get())).supervisorMaxSteps,
        30,
      )
    })

    test('a task queued in the UI goes from queued/running to completed, with its transcript', async () => {
      const prompt = 'Survey the repository and delegate please'
      await queueTask(prompt)
      const seen: string[] = []
      const deadline = Date.now() + 30_000
      while (Date.now() < deadline) {
        const state = await stateOf(taskRow(prompt))
        if (seen.at(-1) !== state) seen.push(state)
        if (state === 'completed') break
        await page.waitForTimeout(100)
      }
      assert.ok(['queued', 'running'].includes(seen[0]!), seen.join(' → '))
      assert.equal(seen.at(-1), 'completed', seen.join(' → '))

      await page.getByRole('link', { name: prompt, exact: true }).click()
      // A finished task's transcript is collapsed below its result.
      await page.locator('summary', { hasText: 'Transcript' }).click()
      const transcript = page.getByRole('list', { name: 'Transcript' })
      await transcript.getByText('Delegated to Researcher').waitFor()
      const items = await transcript.locator(':scope > li').allInnerTexts()
      assert.ok(
        items.some((t) => /^Step 1 of at most \d+/.test(t)),
        items.join('\n---\n'),
      )
      assert.ok(
        items.some((t) => /calls agent-researcher/.test(t)),
        items.join('\n---\n'),
      )
      assert.ok(
        items.some((t) => /found one package/.test(t)),
        items.join('\n---\n'),
      )
      assert.match(await page.getByLabel('Result').innerText(), /found one package, popagent/)
      assert.equal(await page.getByRole('button', { name: 'Cancel task' }).count(), 0)
      assert.equal(await page.getByRole('button', { name: 'Delete task' }).count(), 1)
      await shoot('task-detail')
    })

    test('a long task is cancelled from its detail page and ends cancelled', async () => {
      const prompt = 'Refactor everything, take your time'
      await queueTask(prompt)
      await page.getByRole('link', { name: prompt, exact: true }).click()
      await waitForDetailState('running')
      await page.getByRole('button', { name: 'Cancel task' }).click()
      await waitForDetailState('cancelled')
      assert.equal(await page.getByRole('button', { name: 'Cancel task' }).count(), 0)
      assert.equal(await page.getByRole('button', { name: 'Resolve as completed' }).count(), 1)
    })

    test('a failed task is resolved with evidence; finished work is deleted after a confirmation', async () => {
      const prompt = 'Upgrade the parser, break please'
      await queueTask(prompt)
      await page.getByRole('link', { name: prompt, exact: true }).click()
      await waitForDetailState('failed')
      await page.getByRole('heading', { name: 'Last error' }).waitFor()
      await page.getByRole('button', { name: 'Resolve as completed' }).click()
      assert.equal(await detailState(), 'failed', 'empty evidence is not sent')
      await page.getByLabel('Evidence that the work is done').fill('fixed by hand in commit abc123')
      await page.getByRole('button', { name: 'Resolve as completed' }).click()
      await waitForDetailState('completed')
      await page.getByText('fixed by hand in commit abc123').waitFor()
      const stored = await okJson(await client().api.tasks.$get({ query: { state: 'completed' } }))
      const resolved = stored.tasks.find((t) => t.prompt === prompt)
      assert.equal(resolved?.resolutionEvidence, 'fixed by hand in commit abc123')

      await page.goto(`${url}/#/tasks`)
      await taskRow(prompt).waitFor()
      await page.getByText('remediation').first().waitFor()
      await shoot('tasks')

      // The cancelled task: its delete asks first, and "Keep it" keeps it.
      const cancelled = 'Refactor everything, take your time'
      await page.getByRole('link', { name: cancelled, exact: true }).click()
      await page.getByRole('button', { name: 'Delete task' }).click()
      await page.getByRole('button', { name: 'Keep it' }).click()
      await page.getByRole('button', { name: 'Delete task' }).click()
      await page.getByRole('button', { name: 'Yes, delete' }).click()
      await page.waitForURL(/#\/tasks$/)
      await taskRow(prompt).waitFor()
      assert.equal(await taskRow(cancelled).count(), 0)
    })

    test('a schedule is created with its next occurrences in the server’s timezone; a bad cron shows croner’s message', async () => {
      const timezone = serverTimezone()
      await page.goto(`${url}/#/schedules`)
      const preview = page.getByLabel('Cron preview')
      const cron = page.getByLabel('Cron expression')
      await cron.fill('61 * * * *')
      await preview.getByRole('alert').waitFor()
      assert.match(
        await preview.innerText(),
        /invalid cron expression "61 \* \* \* \*".*minute: 61/,
      )

      await cron.fill('30 9 * * 1-5')
      await preview.locator('li', { hasText: /9:30/ }).first().waitFor()
      await preview.getByText(`Next occurrences (${timezone})`).waitFor()
      assert.equal(await preview.locator('li').count(), 5)
      assert.match(await preview.locator('li').first().innerText(), /9:30/)
      await page.getByLabel('Name', { exact: true }).fill('weekday standup')
      await page.getByLabel('Prompt').fill('Summarise yesterday’s commits')
      await page.getByLabel('Max attempts').fill('2')
      await page.getByLabel('Missed runs').selectOption('none')
      await page.getByRole('button', { name: 'Create schedule' }).click()
      await page.getByText('Created “weekday standup”.').waitFor()

      await page.getByLabel('Name', { exact: true }).fill('nightly audit')
      await cron.fill('@daily')
      await page.getByLabel('Prompt').fill('Audit the dependencies')
      await page.getByLabel('Enabled', { exact: true }).uncheck()
      await page.getByRole('button', { name: 'Create schedule' }).click()
      await page.getByText('Created “nightly audit”.').waitFor()

      const table = page.getByRole('table', { name: 'Schedules' })
      const standup = table.locator('tr', { hasText: 'weekday standup' })
      await standup.waitFor()
      assert.match(await standup.innerText(), /30 9 \* \* 1-5/)
      assert.match(await standup.innerText(), /\b2\b/)
      assert.match(await page.getByLabel('Server timezone').innerText(), new RegExp(timezone))
      const stored = await okJson(await client().api.schedules.$get())
      const made = stored.schedules.find((s) => s.name === 'weekday standup')
      assert.equal(made?.maxAttempts, 2)
      assert.equal(made.catchUp, 'none')
      assert.ok(made.nextRunAt)

      // Skipped occurrences: their count under Last run opens the history, which links the fire.
      const [task] = (await okJson(await client().api.tasks.$get({ query: {} }))).tasks
      const missed = 'missed: more than 60 s late (catch-up: none)'
      await stack.database.db.insert(scheduleFires).values([
        { scheduleId: made.id, occurrenceAt: new Date('2030-07-01T07:30:00Z'), taskId: task!.id },
        ...['2030-07-02T07:30:00Z', '2030-07-03T07:30:00Z'].map((at) => ({
          scheduleId: made.id,
          occurrenceAt: new Date(at),
          outcome: 'skipped' as const,
          reason: missed,
        })),
      ])
      await page.reload()
      await standup.getByText('2 skipped').click()
      await standup.getByText(missed).first().waitFor()
      assert.equal(await standup.getByText(missed).count(), 2)
      assert.match(
        (await standup.getByRole('link', { name: 'fired' }).getAttribute('href')) ?? '',
        new RegExp(`/tasks/${task!.id}$`),
      )

      // Enable/disable per row.
      await page.getByLabel('Enabled: weekday standup').uncheck()
      await standup.getByText('off').waitFor()
      await page.getByLabel('Enabled: weekday standup').check()
      await standup.getByText('on', { exact: true }).waitFor()
      await cron.fill('0 18 * * 5')
      await preview
        .locator('li', { hasText: /Friday.*6:00/ })
        .first()
        .waitFor()
      assert.equal(await preview.getAttribute('aria-busy'), 'false')
      await standup.locator('td').nth(3).filter({ hasNotText: 'being computed' }).waitFor()
      await shoot('schedules')

      // Delete asks first.
      const audit = table.locator('tr', { hasText: 'nightly audit' })
      await audit.getByRole('button', { name: 'Delete' }).click()
      await audit.getByRole('button', { name: 'Yes, delete' }).click()
      await audit.waitFor({ state: 'detached' })
      assert.equal(
        (await okJson(await client().api.schedules.$get())).schedules.filter(
          (s) => s.name === 'nightly audit',
        ).length,
        0,
      )
    })

    test('agent instructions persist after a reload, skills are edited, and a refused tool shows the server’s message', async () => {
      await page.goto(`${url}/#/agents`)
      await page.getByRole('link', { name: 'Reviewer' }).waitFor()
      await shoot('agents')
      await page.getByRole('link', { name: 'Reviewer' }).click()
      const editor = page.getByRole('form', { name: 'Edit agent' })
      const instructions = editor.getByLabel('Instructions', { exact: true })
      const text = `${await instructions.inputValue()}\n\nAlways check the changelog.`
      await instructions.fill(text)
      await editor.getByRole('button', { name: 'Save agent' }).click()
      await page.getByText('Saved Instructions.').waitFor()
      await page.reload()
      assert.equal(await instructions.inputValue(), text)

      // Skills: create, edit, and (below) delete.
      await page.getByRole('button', { name: 'New skill' }).click()
      const create = page.getByRole('form', { name: 'New skill' })
      await create.getByLabel('Skill name').fill('changelog-check')
      await create
        .getByLabel('Skill description')
        .fill('Checks that a change has its changelog entry.')
      await create
        .getByLabel('Skill instructions')
        .fill('Read CHANGELOG.md and compare it to the diff.')
      await create.getByRole('button', { name: 'Save skill' }).click()
      const skill = page.locator('[data-skill="changelog-check"]')
      await skill.waitFor()
      await skill.getByRole('button', { name: 'Edit changelog-check' }).click()
      const edit = page.getByRole('form', { name: 'Edit skill changelog-check' })
      await edit.getByLabel('Skill description').fill('Checks every change for a changelog entry.')
      await edit.getByRole('button', { name: 'Save skill' }).click()
      await skill.getByText('Checks every change for a changelog entry.').waitFor()
      const skills = await okJson(
        await client().api.agents[':id'].skills.$get({ param: { id: 'reviewer' } }),
      )
      const stored = skills.skills.find((s) => s.name === 'changelog-check')
      assert.equal(stored?.description, 'Checks every change for a changelog entry.')
      assert.ok(skills.skills.length >= 3)
      await page.reload()
      await skill.waitFor()
      await shoot('agent-detail')

      // Each saved tool carries the host's answer: what a run gets, and why not when it cannot.
      const chip = (tool: string) => editor.locator(`[data-tool="${tool}"] .tool-state`)
      // The browser is built but off by default: the chip says where it is switched on.
      await chip('browser')
        .getByText('browser automation is switched off in the settings')
        .waitFor()
      // A repository is registered (the default one), so a repository tool is ready in it.
      assert.equal(await chip('workspace-read').innerText(), 'ready in the chat’s repository')
      assert.equal(await chip('web-search').innerText(), 'ready')
      await shoot('agent-tools')

      // A tool the reviewer's access cannot hold: the server's message, and nothing changes.
      const before = await okJson(
        await client().api.agents[':id'].$get({ param: { id: 'reviewer' } }),
      )
      await editor.getByLabel('Add a tool').fill('workspace-write')
      await editor.getByRole('button', { name: 'Add tool' }).click()
      assert.equal(await editor.getByLabel('workspace-write', { exact: true }).isChecked(), true)
      assert.equal(await chip('workspace-write').innerText(), 'checked on save')
      await editor.getByRole('button', { name: 'Save agent' }).click()
      const refusal = editor.getByRole('alert')
      await refusal.waitFor()
      assert.match(await refusal.innerText(), /"workspace-write" needs read-write workspace access/)
      assert.deepEqual(await (await api('/api/agents/reviewer')).json(), before)

      await skill.getByRole('button', { name: 'Delete changelog-check' }).click()
      await skill.getByRole('button', { name: 'Yes, delete' }).click()
      await skill.waitFor({ state: 'detached' })
    })

    test('with POPAGENT_API_KEY set, the UI asks for the key and says when it is refused', async () => {
      const keyed = await stack.listen({ apiKey: API_KEY })
      const guarded = await browser.page('phone')
      try {
        await guarded.goto(`${keyed}/#/tasks`)
        await guarded.getByText('This popagent needs its API key').waitFor()
        await guarded.getByLabel('API key').fill('wrong-key-0123456789abcdef')
        await guarded.getByRole('button', { name: 'Continue' }).click()
        await guarded.getByRole('alert').filter({ hasText: 'refused that API key' }).waitFor()
        await guarded.getByLabel('API key').fill(API_KEY)
        await guarded.getByRole('button', { name: 'Continue' }).click()
        await guarded.getByRole('heading', { name: 'Tasks' }).waitFor()
        await guarded
          .getByRole('link', { name: 'Survey the repository and delegate please' })
          .waitFor()
      } finally {
        await guarded.close()
      }
    })
  })
})
