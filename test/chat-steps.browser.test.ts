/**
 * The chat as a daily tool, in a real browser against a real popagent with the scripted gateway:
 * a turn reads as steps (the repository brief collapsed, a tool's arguments indented) with a
 * working line while it runs; the repository is picked beside the message box and named in the
 * header; a failed turn's Retry sends the same prompt again and Edit replaces the last message;
 * a missing session says so once; the colours follow the system's dark mode; settings open on the
 * model gateway's connection.
 */
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { createWorkspace } from './support/api-fixtures.ts'
import { browserMissing, launchBrowser, type Browser } from './support/browser.ts'
import { markRoles, messagesOf, roleOf, toolResultsOf } from './support/chat.ts'
import type { RecordedRequest, Reply } from './support/scripted-gateway.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient } from './support/typed-client.ts'

/** The text of the newest user message a gateway request carried. */
function lastUserText(r: RecordedRequest): string {
  const users = messagesOf(r).filter((m) => m.role === 'user')
  return JSON.stringify(users.at(-1)?.content ?? '')
}

/** The orchestrator delegates; the researcher searches skills, then both answer. */
const delegating =
  (answer: string) =>
  (r: RecordedRequest): Reply | undefined => {
    const done = toolResultsOf(r).length
    if (roleOf(r) === 'orchistrator') {
      return done === 0
        ? { toolCalls: [{ name: 'agent-researcher', arguments: { prompt: 'Look into it' } }] }
        : { text: answer.split(/(?<= )/), chunkDelayMs: 30 }
    }
    if (roleOf(r) === 'researcher') {
      return done === 0
        ? { toolCalls: [{ name: 'skill_search', arguments: { query: 'parser', limit: 3 } }] }
        : { text: 'Found nothing special.' }
    }
    return undefined
  }

describe('chat steps, recovery and the repository in view', { skip: browserMissing }, () => {
  let stack: TestStack
  let browser: Browser
  let page: Page
  let url: string
  let dir: string
  let sessionId: string

  before(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'popagent-chat-steps-')))
    const repo = join(dir, 'root', 'proj')
    await mkdir(join(repo, '.git'), { recursive: true })
    await writeFile(join(repo, 'README.md'), '# proj\n\nA parser.\n')
    stack = await startTestStack({
      models: [{ id: 'remote/a' }],
      hostEnv: { POPAGENT_WORKSPACE_ROOT: join(dir, 'root') },
    })
    url = await stack.listen()
    await markRoles(stack, ['orchistrator', 'researcher'])
    await createWorkspace(stack.edge(), 'proj')
    browser = await launchBrowser()
    page = await browser.page()
  })
  after(async () => {
    await browser?.close()
    await stack?.stop()
    await rm(dir, { recursive: true, force: true })
  })

  const message = () => page.getByRole('textbox', { name: 'Message' })
  const reply = () => page.locator('article.msg.assistant').last()
  const idle = () => page.getByRole('button', { name: 'Send' }).waitFor({ timeout: 15_000 })

  test('a new chat in the picked repository; its turn reads as steps', async () => {
    await page.goto(`${url}/#/`)
    // The first screen names the repositories and fills the box from an example.
    const start = page.getByRole('region', { name: 'Start a chat' })
    await start.locator('strong', { hasText: 'proj' }).waitFor()
    await start.getByRole('button', { name: /Run the tests/ }).click()
    assert.match(await message().inputValue(), /Run the tests/)
    await page.getByLabel('Repository').selectOption({ label: 'proj' })
    stack.gateway.respondWith(delegating('The parser is fine: nothing to change here.'))
    try {
      await message().fill('Look at the parser')
      await message().press('Enter')
      // While it runs, the reply says what it is doing, not a dot.
      await reply().getByRole('status').filter({ hasText: /…/ }).waitFor({ timeout: 15_000 })
      await idle()
    } finally {
      stack.gateway.respondWith(undefined)
    }
    sessionId = /#\/sessions\/(ses_\w+)/.exec(page.url())![1]!
    const saved = await okJson(
      await typedClient(url).api.sessions[':id'].$get({ param: { id: sessionId } }),
    )
    const proj = (await okJson(await typedClient(url).api.workspaces.$get())).workspaces.find(
      (w) => w.name === 'proj',
    )!
    assert.equal(saved.workspaceId, proj.id, 'the chat went to the picked repository')
    assert.match(await page.locator('.session-repo').innerText(), /in proj/)

    const steps = reply().locator('.activity .act')
    // The brief is a context step, closed; the specialist's tool call opens to indented JSON.
    const context = steps.and(page.locator('[data-kind="context"]'))
    assert.ok((await context.count()) >= 1, 'the repository brief is a step')
    assert.equal(await context.first().locator('details').getAttribute('open'), null)
    assert.equal(await context.first().locator('.act-output').isVisible(), false)
    const tool = steps.filter({ hasText: 'skill_search' })
    assert.match(await tool.locator('summary').innerText(), /Researcher.*skill_search.*done/s)
    await tool.locator('summary').click()
    const args = await tool.locator('.act-input').innerText()
    assert.equal(args, '{\n  "query": "parser",\n  "limit": 3\n}')
    // A finished answer offers feedback, copy and its trace.
    await reply().getByRole('button', { name: 'Good answer' }).waitFor()
    await reply().getByRole('link', { name: 'Trace' }).waitFor()
  })

  test('Retry sends a failed turn’s prompt again; Edit replaces the last message', async () => {
    stack.gateway.respondWith(() => ({ status: 502, message: 'upstream exploded' }))
    try {
      await message().fill('please retry me')
      await message().press('Enter')
      await reply().getByRole('alert').waitFor({ timeout: 15_000 })
      await idle()
    } finally {
      stack.gateway.respondWith(undefined)
    }
    // A failed turn has no feedback buttons: there is no answer to judge.
    assert.equal(await reply().getByRole('button', { name: 'Good answer' }).count(), 0)

    const seen = stack.gateway.requests.length
    stack.gateway.respondWith(() => ({ text: 'second time lucky' }))
    try {
      await reply().getByRole('button', { name: 'Retry' }).click()
      await reply().getByText('second time lucky').waitFor({ timeout: 15_000 })
      await idle()
    } finally {
      stack.gateway.respondWith(undefined)
    }
    const retried = stack.gateway.requests.slice(seen).filter((r) => roleOf(r) === 'orchistrator')
    assert.ok(retried.length > 0)
    assert.match(lastUserText(retried[0]!), /please retry me/, 'the gateway saw the same prompt')
    await page.waitForFunction(() => document.querySelectorAll('article.msg').length === 4)
    const asked = (text: string) => page.locator('article.msg.user', { hasText: text }).count()
    assert.equal(await asked('please retry me'), 1, 'the failed exchange went')
    assert.equal(await page.getByText('upstream exploded').count(), 0)

    const before = stack.gateway.requests.length
    stack.gateway.respondWith(() => ({ text: 'answer to the edit' }))
    try {
      await page.locator('article.msg.user').last().getByRole('button', { name: 'Edit' }).click()
      await page.getByRole('textbox', { name: 'Edit message' }).fill('the edited prompt')
      await page.getByRole('button', { name: 'Send edited' }).click()
      await reply().getByText('answer to the edit').waitFor({ timeout: 15_000 })
      await idle()
    } finally {
      stack.gateway.respondWith(undefined)
    }
    const edited = stack.gateway.requests.slice(before).filter((r) => roleOf(r) === 'orchistrator')
    assert.match(lastUserText(edited[0]!), /the edited prompt/)
    await page.waitForFunction(() => document.querySelectorAll('article.msg').length === 4)
    assert.equal(await asked('please retry me'), 0, 'the message was replaced')
    const saved = await okJson(
      await typedClient(url).api.sessions[':id'].$get({ param: { id: sessionId } }),
    )
    assert.equal(saved.messages.length, 4)
    assert.match(JSON.stringify(saved.messages[2]), /the edited prompt/)
  })

  test('a missing session says so once; dark mode follows the system', async () => {
    await page.goto(`${url}/#/sessions/ses_doesnotexist00000000000`)
    await page.getByRole('heading', { name: 'Session not found' }).waitFor()
    await page.locator('.conversation .error').first().waitFor()
    assert.equal(await page.locator('.conversation .error').count(), 1)
    assert.equal(await page.getByText('No messages yet.').count(), 0)
    assert.equal(await message().count(), 0, 'no message box for a session that is not there')

    const background = () =>
      page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)
    await page.emulateMedia({ colorScheme: 'light' })
    const light = await background()
    await page.emulateMedia({ colorScheme: 'dark' })
    const dark = await background()
    assert.notEqual(dark, light)
    const card = await page.evaluate(
      () => getComputedStyle(document.querySelector('.chat-sidebar')!).backgroundColor,
    )
    assert.notEqual(card, 'rgb(255, 255, 255)', 'cards are dark too')
    await page.emulateMedia({ colorScheme: 'light' })
  })

  test('settings open on the model gateway’s connection, with an index of sections', async () => {
    await page.goto(`${url}/#/settings`)
    const gateway = page.getByRole('region', { name: 'Model gateway' })
    await gateway.getByText('connected').waitFor()
    assert.match(await gateway.getByRole('status').innerText(), /\d+ ms · \d+ models? · default/)
    const index = page.getByRole('navigation', { name: 'Settings sections' })
    await index.getByRole('button', { name: 'Memory' }).click()
    await page.waitForFunction(() => {
      const top = document.getElementById('settings-memory')?.getBoundingClientRect().top
      return top !== undefined && top < 200
    })
  })
})
