/**
 * The UI's foundations in a real browser against a real popagent: the chat is one page for `/` and
 * `/sessions/:id` (a first message keeps the page, its focus and the live turn), each session
 * keeps its own draft, the model catalog is fetched once for the whole app, and an edit saved on
 * one page shows on another without a reload (the edit invalidates the cached list).
 */
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { browserMissing, launchBrowser, type Browser } from './support/browser.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient, type Client } from './support/typed-client.ts'

/** Marks the window: a full reload loses the mark, client-side navigation keeps it. */
const markWindow = (page: Page) =>
  page.evaluate(() => Object.assign(window, { popagentNoReload: true }))
const windowKept = (page: Page) =>
  page.evaluate(() => (window as Window & { popagentNoReload?: boolean }).popagentNoReload === true)

describe('UI foundations', { skip: browserMissing }, () => {
  let stack: TestStack
  let browser: Browser
  let url: string
  let api: Client
  let root: string
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'popagent-ui-foundations-'))
    await mkdir(join(root, 'cache-check'))
    stack = await startTestStack({ hostEnv: { POPAGENT_WORKSPACE_ROOT: root } })
    url = await stack.listen()
    api = typedClient(url)
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await stack?.stop()
    await rm(root, { recursive: true, force: true })
  })

  const message = (page: Page) => page.getByRole('textbox', { name: 'Message' })

  test('a first message on / keeps the page mounted, the focus in the box and the live turn', async () => {
    const page = await browser.page()
    await page.goto(`${url}/#/`)
    await page
      .locator('section.conversation')
      .evaluate((el) => Object.assign(el, { firstMount: true }))
    stack.gateway.respondWith(() => ({
      text: Array.from({ length: 60 }, (_, i) => `word${i} `),
      chunkDelayMs: 30,
    }))
    try {
      await message(page).fill('Hello from a new chat')
      await message(page).press('Enter')
      await page.waitForURL(/#\/sessions\/ses_/)
      // The reply streams on the page that sent it: the live turn was not lost to a remount.
      await page.locator('article.msg.assistant .reply-text').filter({ hasText: 'word3' }).waitFor()
      assert.equal(
        await page
          .locator('section.conversation')
          .evaluate((el) => (el as HTMLElement & { firstMount?: boolean }).firstMount === true),
        true,
        'the conversation element is the one rendered for /',
      )
      assert.equal(
        await page.evaluate(() => document.activeElement?.getAttribute('aria-label')),
        'Message',
        'the message box kept the focus',
      )
      await page.getByRole('button', { name: 'Send' }).waitFor({ timeout: 15_000 })
    } finally {
      stack.gateway.respondWith(undefined)
    }
    await page.getByText('word59').waitFor()
    await page.close()
  })

  test('each session keeps its own draft', async () => {
    const first = await okJson(await api.api.sessions.$post({ json: { title: 'Draft one' } }), 201)
    const second = await okJson(await api.api.sessions.$post({ json: { title: 'Draft two' } }), 201)
    const page = await browser.page()
    const open = async (title: string) => {
      await page
        .getByRole('list', { name: 'Active sessions' })
        .getByRole('link', { name: title })
        .click()
      await page.getByRole('heading', { name: title }).waitFor()
    }
    await page.goto(`${url}/#/sessions/${first.id}`)
    await page.getByRole('heading', { name: 'Draft one' }).waitFor()
    await message(page).fill('unsent in one')
    await open('Draft two')
    assert.equal(await message(page).inputValue(), '', 'the second session has no draft yet')
    await message(page).fill('unsent in two')
    await open('Draft one')
    assert.equal(await message(page).inputValue(), 'unsent in one')
    await open('Draft two')
    assert.equal(await message(page).inputValue(), 'unsent in two')
    // A new chat has its own draft too, and another page visited meanwhile loses none of them.
    await page.getByRole('link', { name: 'Tasks' }).click()
    await page.getByRole('heading', { name: 'Tasks' }).waitFor()
    await page.goBack()
    await page.getByRole('heading', { name: 'Draft two' }).waitFor()
    assert.equal(await message(page).inputValue(), 'unsent in two')
    assert.equal(second.title, 'Draft two')
    await page.close()
  })

  test('an agent renamed in its editor shows in the agents list without a reload', async () => {
    const page = await browser.page()
    await page.goto(`${url}/#/agents`)
    const list = page.getByRole('table', { name: 'Agents' })
    await list.getByRole('link', { name: 'Reviewer' }).waitFor()
    await markWindow(page)
    // The list was read a moment ago: without invalidation its cached copy would show again.
    await list.getByRole('link', { name: 'Reviewer' }).click()
    const editor = page.getByRole('form', { name: 'Edit agent' })
    await editor.getByLabel('Name').fill('Strict reviewer')
    await editor.getByRole('button', { name: 'Save agent' }).click()
    await editor.getByRole('status').filter({ hasText: 'Saved Name.' }).waitFor()
    await page.getByRole('heading', { name: 'Strict reviewer' }).waitFor()
    await page.getByRole('link', { name: '← All agents' }).click()
    await list.getByRole('link', { name: 'Strict reviewer' }).waitFor({ timeout: 5_000 })
    assert.equal(await list.getByRole('link', { name: 'Reviewer', exact: true }).count(), 0)
    assert.ok(await windowKept(page), 'no page reload')
    const stored = await okJson(await api.api.agents[':id'].$get({ param: { id: 'reviewer' } }))
    assert.equal(stored.displayName, 'Strict reviewer')
    await page.close()
  })

  test('a workspace registered on its page is in the chat’s filter without a reload', async () => {
    const page = await browser.page()
    await page.goto(`${url}/#/`)
    const filter = page.getByLabel('Workspace')
    await filter.locator('option').first().waitFor({ state: 'attached' })
    await markWindow(page)
    await page.getByRole('link', { name: 'Workspaces' }).click()
    await page.getByLabel('Name').fill('cache-check')
    await page.getByLabel('Path under the workspace root').fill('cache-check')
    await page.getByRole('button', { name: 'Register' }).click()
    await page.getByRole('link', { name: 'cache-check' }).waitFor()
    await page.getByRole('link', { name: 'Chat' }).click()
    await filter.locator('option', { hasText: 'cache-check' }).waitFor({ state: 'attached' })
    assert.ok(await windowKept(page), 'no page reload')
    await page.close()
  })

  test('the model catalog is fetched once while the owner moves between pages', async () => {
    const page = await browser.page()
    const catalogReads: string[] = []
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/models') catalogReads.push(r.url())
    })
    await page.goto(`${url}/#/`)
    await page.getByLabel('Model').locator('option').first().waitFor({ state: 'attached' })
    for (const [link, heading] of [
      ['Tasks', 'Tasks'],
      ['Schedules', 'Schedules'],
      ['Settings', 'Settings'],
      ['Agents', 'Agents'],
    ] as const) {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link }).click()
      await page.getByRole('heading', { name: heading, exact: true }).waitFor()
    }
    // Past the router's five-second grace for a query no page holds: the layout holds this one.
    await page.waitForTimeout(5_500)
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Tasks' })
      .click()
    await page
      .getByRole('form', { name: 'New task' })
      .getByLabel('Model')
      .locator('option')
      .nth(1)
      .waitFor({ state: 'attached' })
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Chat' }).click()
    await page.getByLabel('Model').locator('option').first().waitFor({ state: 'attached' })
    assert.equal(catalogReads.length, 1, catalogReads.join('\n'))
    await page.close()
  })
})
