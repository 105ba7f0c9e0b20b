/**
 * The task and schedule pages put the result first (issue 36), in a real browser against a real
 * popagent: tasks run through the agents on the scripted gateway. A task's Markdown answer renders
 * as Markdown above its internals, with the workspace by name, an honest step count and its usage;
 * Retry queues a new task, the trace link names the task's trace, and "Continue in chat" opens a
 * session in the task's workspace with the task quoted in its message box. A schedule runs now,
 * links to that run, and is edited in its own form, prefilled.
 */
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { json } from './support/app.ts'
import { browserMissing, launchBrowser, screenshotBoth, type Browser } from './support/browser.ts'
import { messagesOf } from './support/chat.ts'
import type { RecordedRequest } from './support/scripted-gateway.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { until } from './support/until.ts'
import { okJson, typedClient } from './support/typed-client.ts'

const ANSWER = '## Findings\n\nThe repository has **one** package:\n\n- popagent\n- its tests'
const PROMPT = 'Survey the packages, markdown please'

/** The task prompt a gateway request belongs to (its first user message). */
const promptOf = (r: RecordedRequest): string => {
  const user = messagesOf(r).find((m) => m.role === 'user')
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '')
}

describe('task and schedule pages, result first', { skip: browserMissing }, () => {
  let stack: TestStack
  let root: string
  let browser: Browser
  let url: string
  let page: Page
  const client = () => typedClient(stack.edge()).api
  const task = async (id: string) =>
    okJson(await client().tasks[':id'].$get({ param: { id } }), 200)
  const allTasks = async () =>
    (await okJson(await client().tasks.$get({ query: { limit: '500' } }), 200)).tasks
  const completed = (id: string) =>
    until(async () => (await task(id)).state === 'completed', 30_000, `${id} completed`)

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'popagent-ui-task-results-'))
    await mkdir(join(root, 'popagent'))
    stack = await startTestStack({
      // A context window: a lone default model without one reads as an empty catalog (first run).
      models: [{ id: 'remote/a', contextWindow: 128000 }],
      hostEnv: { POPAGENT_WORKSPACE_ROOT: root },
    })
    const settings = await stack
      .edge()
      .request(
        '/api/settings/agent-runtime',
        json({ configuredModel: 'remote/a', modelSource: 'configured' }, { method: 'PATCH' }),
      )
    assert.equal(settings.status, 200, await settings.text())
    stack.gateway.respondWith((r) => ({
      text: promptOf(r).includes('markdown please') ? ANSWER : 'The digest is empty today.',
    }))
    url = await stack.listen()
    browser = await launchBrowser()
    page = await browser.page()
    page.setDefaultTimeout(20_000)
  })
  after(async () => {
    await browser?.close()
    await stack?.stop()
    await rm(root, { recursive: true, force: true })
  })

  test('a Markdown result shows first, rendered, with the workspace by name and honest steps', async () => {
    const created = await okJson(
      await client().tasks.$post({ json: { workspaceId: 'wsp_default', prompt: PROMPT } }),
      201,
    )
    await completed(created.id)
    const done = await task(created.id)

    await page.goto(`${url}/#/tasks`)
    const row = page.locator(`tr[data-task-id="${created.id}"]`)
    await row.getByText('completed', { exact: true }).waitFor()
    assert.equal(await row.locator('[data-first-line]').innerText(), 'Findings')

    await row.getByRole('link', { name: PROMPT }).click()
    const result = page.getByLabel('Result')
    await result.getByRole('heading', { name: 'Findings' }).waitFor()
    assert.equal(await result.locator('strong').innerText(), 'one')
    assert.deepEqual(await result.locator('li').allInnerTexts(), ['popagent', 'its tests'])
    assert.ok(!(await result.innerText()).includes('##'), 'no raw Markdown')

    const summary = await page.getByLabel('Summary').innerText()
    assert.match(summary, /In popagent/)
    assert.ok(!summary.includes('wsp_default'), summary)
    // One supervisor step answered; the bound is the settings' limit, never a plan.
    assert.match(summary, /1 step used of at most \d+/)
    assert.match(summary, /\d[\d,]* in · \d[\d,]* out/)

    // The internals are below the result, collapsed; the transcript says "at most" too.
    const transcript = page.getByRole('list', { name: 'Transcript' })
    assert.equal(await transcript.isVisible(), false)
    await page.locator('summary', { hasText: 'Transcript' }).click()
    const step = transcript.locator('li.kind-step').first()
    assert.match(await step.innerText(), /^Step 1 of at most \d+/)
    const resultTop = (await result.boundingBox())!.y
    assert.ok(resultTop < (await transcript.boundingBox())!.y, 'the result comes first')

    const trace = page.getByRole('link', { name: 'Trace of the last attempt' })
    assert.ok(done.traceId)
    assert.equal(await trace.getAttribute('href'), `#/observability/traces/${done.traceId}`)
    await screenshotBoth(page, 'task-result-first')
  })

  test('Retry queues a new task with the same prompt and opens it', async () => {
    const original = (await allTasks()).find((t) => t.prompt === PROMPT)!
    await page.goto(`${url}/#/tasks/${original.id}`)
    await page.getByRole('button', { name: 'Retry' }).click()
    await page.waitForURL((u) => /#\/tasks\/tsk_/.test(u.hash) && !u.hash.includes(original.id))
    const retriedId = new URL(page.url()).hash.replace('#/tasks/', '')
    const retried = await task(retriedId)
    assert.deepEqual(
      [retried.prompt, retried.workspaceId, retried.source],
      [PROMPT, 'wsp_default', 'user'],
    )
    await completed(retriedId)
    await page.getByLabel('Result').getByRole('heading', { name: 'Findings' }).waitFor()
    assert.equal((await task(original.id)).state, 'completed', 'the original stays')
  })

  test('Continue in chat opens a session in the task’s workspace with the task quoted', async () => {
    const original = (await allTasks()).find((t) => t.prompt === PROMPT)!
    await page.goto(`${url}/#/tasks/${original.id}`)
    await page.getByRole('button', { name: 'Continue in chat' }).click()
    await page.waitForURL((u) => /#\/sessions\/ses_/.test(u.hash))
    const sessionId = new URL(page.url()).hash.replace('#/sessions/', '')
    const message = page.getByLabel('Message')
    await message.waitFor()
    const draft = await message.inputValue()
    assert.match(draft, new RegExp(`> ${PROMPT}`))
    assert.match(draft, /Its result:\n> ## Findings\n>\n> The repository has \*\*one\*\* package:/)
    const session = await okJson(
      await client().sessions[':id'].$get({ param: { id: sessionId } }),
      200,
    )
    assert.equal(session.workspaceId, 'wsp_default')
  })

  test('a schedule runs now, links to that run, and is edited in its prefilled form', async () => {
    const made = await okJson(
      await client().schedules.$post({
        json: {
          workspaceId: 'wsp_default',
          name: 'Monday digest',
          cron: '0 9 * * 1',
          prompt: 'Write the digest',
        },
      }),
      201,
    )
    await page.goto(`${url}/#/schedules`)
    const row = page.locator(`tr[data-schedule-id="${made.id}"]`)
    await row.waitFor()
    const lastRun = row.locator('td').nth(4)
    assert.equal(await lastRun.innerText(), '—')

    await row.getByRole('button', { name: 'Run Monday digest now' }).click()
    const link = lastRun.getByRole('link')
    await link.waitFor()
    const ran = (await allTasks()).filter((t) => t.scheduleId === made.id)
    assert.equal(ran.length, 1, 'one task queued')
    assert.equal(ran[0]!.title, 'Monday digest')
    assert.equal(await link.getAttribute('href'), `#/tasks/${ran[0]!.id}`)
    // The state follows the run as it ends.
    await lastRun.getByText('completed').waitFor()
    await screenshotBoth(page, 'schedules-last-run')
    await link.click()
    await page.waitForURL((u) => u.hash === `#/tasks/${ran[0]!.id}`)
    await page.getByRole('heading', { name: 'Monday digest' }).waitFor()
    await page.getByLabel('Result').getByText('The digest is empty today.').waitFor()

    await page.goto(`${url}/#/schedules`)
    await row.getByRole('button', { name: 'Edit Monday digest' }).click()
    const form = page.getByRole('form', { name: 'Edit schedule' })
    assert.equal(await form.getByLabel('Name').inputValue(), 'Monday digest')
    assert.equal(await form.getByLabel('Cron expression').inputValue(), '0 9 * * 1')
    assert.equal(await form.getByLabel('Prompt').inputValue(), 'Write the digest')
    assert.equal(await form.getByLabel('Max attempts').inputValue(), '3')
    await form.getByLabel('Prompt').fill('Write the digest, short')
    await form.getByLabel('Max attempts').fill('5')
    await form.getByRole('button', { name: 'Save schedule' }).click()
    await form.waitFor({ state: 'detached' })
    const saved = (await okJson(await client().schedules.$get(), 200)).schedules.find(
      (s) => s.id === made.id,
    )!
    assert.deepEqual(
      [saved.prompt, saved.maxAttempts, saved.cron, saved.name],
      ['Write the digest, short', 5, '0 9 * * 1', 'Monday digest'],
    )
    assert.equal(saved.lastTask?.id, ran[0]!.id)
  })
})
