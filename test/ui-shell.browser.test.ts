/**
 * The app shell in a real browser against a real popagent: the sign-in link works in a tab that is
 * already open, an unknown address and a page still loading show something under the navigation,
 * each page names its tab, and at phone width the navigation is one row behind a Menu button and
 * no page scrolls sideways.
 */
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import {
  browserMissing,
  launchBrowser,
  screenshotBoth,
  VIEWPORTS,
  type Browser,
} from './support/browser.ts'
import { postChat } from './support/chat.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient } from './support/typed-client.ts'
import { readUiStream } from './support/ui-stream.ts'

const API_KEY = 'ui-shell-api-key-0123456789abcdef'

const NAV = [
  ['/', 'Chat'],
  ['/tasks', 'Tasks'],
  ['/schedules', 'Schedules'],
  ['/agents', 'Agents'],
  ['/settings', 'Settings'],
  ['/workspaces', 'Workspaces'],
  ['/docs', 'Docs'],
  ['/memories', 'Memories'],
  ['/hooks', 'Hooks'],
  ['/channels', 'Channels'],
  ['/secrets', 'Secrets'],
  ['/observability', 'Observability'],
  ['/autonomy', 'Autonomy'],
  ['/browser', 'Browser'],
] as const

describe('app shell', { skip: browserMissing }, () => {
  let stack: TestStack
  let browser: Browser
  let root: string
  /** An edge that needs no key, and one that needs API_KEY (each origin its own localStorage). */
  let url: string
  let keyed: string
  let sessionId: string
  let taskId: string
  let workspaceId: string

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'popagent-ui-shell-'))
    await mkdir(join(root, 'a-checkout-with-a-rather-long-directory-name'))
    stack = await startTestStack({
      models: [{ id: 'remote/a' }],
      hostEnv: { POPAGENT_WORKSPACE_ROOT: root },
    })
    stack.gateway.respondWith(() => ({ text: 'A reply with `code` in it.' }))
    url = await stack.listen()
    keyed = await stack.listen({ apiKey: API_KEY })
    // Rows for the pages that overflowed at phone width, and a session and a task to visit.
    const api = typedClient(stack.edge()).api
    const workspace = {
      name: 'a-workspace-name',
      path: 'a-checkout-with-a-rather-long-directory-name',
    }
    workspaceId = (await okJson(await api.workspaces.$post({ json: workspace }), 201)).id
    const hook = {
      name: 'notify me',
      event: 'PostToolUse',
      kind: 'http',
      matcher: '*',
      url: 'https://hooks.example.com/popagent/notify',
    } as const
    await okJson(await api.hooks.$post({ json: hook }), 201)
    const session = await api.sessions.$post({ json: { title: 'Phone layout notes' } })
    sessionId = (await okJson(session, 201)).id
    await readUiStream(await postChat(url, { sessionId, model: 'remote/a', text: 'hello' }))
    const task = await api.tasks.$post({ json: { workspaceId, prompt: 'Survey the repository' } })
    taskId = (await okJson(task, 201)).id
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await stack?.stop()
    await rm(root, { recursive: true, force: true })
  })

  const message = (page: Page) => page.getByRole('textbox', { name: 'Message' })

  test('the sign-in link pasted into a tab showing the key prompt signs it in and leaves the address bar', async () => {
    const page = await browser.page()
    page.setDefaultTimeout(20_000)
    await page.goto(`${keyed}/#/tasks`)
    await page.getByText('This popagent needs its API key').waitFor()
    // What pasting the link into this tab does: the fragment changes, no page loads.
    await page.evaluate((link) => (location.href = link), `${keyed}/#key=${API_KEY}`)
    await message(page).waitFor()
    assert.equal(await page.getByLabel('API key').count(), 0)
    assert.equal(page.url(), `${keyed}/#/`, 'the start page, with no key in the address')
    assert.equal(await page.evaluate(() => localStorage.getItem('popagent.apiKey')), API_KEY)
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Tasks' })
      .click()
    await page.getByRole('link', { name: 'Survey the repository' }).waitFor()
    await page.close()
  })

  test('the sign-in link pasted into a signed-in tab opens the start page without the key', async () => {
    const page = await browser.page()
    page.setDefaultTimeout(20_000)
    await page.goto(`${keyed}/#/tasks`)
    await page.evaluate((key) => localStorage.setItem('popagent.apiKey', key), API_KEY)
    await page.reload()
    await page.getByRole('heading', { name: 'Tasks' }).waitFor()
    await page.evaluate((link) => (location.href = link), `${keyed}/#key=${API_KEY}`)
    await message(page).waitFor()
    assert.equal(page.url(), `${keyed}/#/`)
    // Back goes to the page the link was pasted over, not to the key.
    await page.goBack()
    await page.getByRole('heading', { name: 'Tasks' }).waitFor()
    assert.doesNotMatch(page.url(), /key=/)
    await page.close()
  })

  test('an unknown address shows a not-found page under the navigation, with a way home', async () => {
    const page = await browser.page()
    await page.goto(`${url}/#/nope`)
    await page.getByRole('heading', { name: 'Page not found' }).waitFor()
    assert.match(await page.locator('main').innerText(), /\/nope/)
    const nav = page.getByRole('navigation', { name: 'Main' })
    assert.equal(await nav.getByRole('link').count(), NAV.length)
    assert.equal(await page.title(), 'Not found · popagent')
    await page.getByRole('link', { name: 'Go to the chat' }).click()
    await message(page).waitFor()
    assert.match(page.url(), /#\/$/)
    await page.close()
  })

  test('each page names its tab, an open session by its title', async () => {
    const page = await browser.page()
    const titles = [
      ['/', 'Chat · popagent'],
      ['/tasks', 'Tasks · popagent'],
      [`/tasks/${taskId}`, 'Task · popagent'],
      ['/hooks', 'Hooks · popagent'],
      [`/sessions/${sessionId}`, 'Phone layout notes · popagent'],
      [`/workspaces/${workspaceId}`, 'Workspaces · popagent'],
      ['/observability', 'Observability · popagent'],
    ] as const
    for (const [route, title] of titles) {
      await page.goto(`${url}/#${route}`)
      await page
        .waitForFunction((t) => document.title === t, title)
        .catch(async () => {
          assert.fail(`${route} is titled "${await page.title()}", not "${title}"`)
        })
    }
    await page.close()
  })

  test('a page whose code is still loading says so, and one that cannot load offers a reload', async () => {
    const page = await browser.page()
    await page.goto(`${url}/#/`)
    await message(page).waitFor()
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    await page.route(/\/assets\/secrets-[\w-]+\.js$/, async (route) => {
      await held
      await route.continue()
    })
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Secrets' })
      .click()
    await page.getByRole('status').filter({ hasText: 'Loading' }).waitFor()
    release()
    await page.getByRole('heading', { name: 'Secrets' }).waitFor()
    assert.equal(await page.getByRole('status').filter({ hasText: 'Loading' }).count(), 0)

    await page.route(/\/assets\/memories-[\w-]+\.js$/, (route) => route.abort())
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Memories' })
      .click()
    await page.getByRole('alert').filter({ hasText: 'could not be loaded' }).waitFor()
    await page.unroute(/\/assets\/memories-[\w-]+\.js$/)
    await page.getByRole('button', { name: 'Reload' }).click()
    await page.getByRole('heading', { name: 'Memories' }).waitFor()
    await page.close()
  })

  test('at phone width the navigation is one row with a Menu button that opens the links', async () => {
    const page = await browser.page('phone')
    await page.goto(`${url}/#/`)
    await message(page).waitFor()
    const menu = page.getByRole('button', { name: 'Menu' })
    const nav = page.getByRole('navigation', { name: 'Main' })
    assert.equal(await menu.count(), 1, 'a Menu button')
    const bar = await page.locator('header', { has: menu }).boundingBox()
    assert.ok(bar && bar.height <= 56, `the top bar is ${bar?.height}px high`)
    assert.equal(await menu.getAttribute('aria-expanded'), 'false')
    assert.equal(await nav.getByRole('link', { name: 'Tasks' }).isVisible(), false)

    await menu.click()
    assert.equal(await menu.getAttribute('aria-expanded'), 'true')
    for (const [, name] of NAV) {
      const box = await nav.getByRole('link', { name, exact: true }).boundingBox()
      assert.ok(box, `${name} shows`)
      const { width, height } = VIEWPORTS.phone
      assert.ok(box.x >= 0 && box.x + box.width <= width, `${name} is within the screen`)
      assert.ok(box.y >= 0 && box.y + box.height <= height, `${name} is within the screen`)
      assert.ok(box.height >= 32, `${name} is big enough to tap`)
    }
    await screenshotBoth(page, 'nav-menu-phone')
    await page.setViewportSize(VIEWPORTS.phone)
    // Each link, tapped where it shows, opens its page and closes the menu.
    for (const [route, name] of [...NAV.slice(1), NAV[0]]) {
      if ((await menu.getAttribute('aria-expanded')) === 'false') await menu.click()
      const box = (await nav.getByRole('link', { name, exact: true }).boundingBox())!
      await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2)
      await page.waitForURL((u) => u.hash === `#${route}`)
      assert.equal(await menu.getAttribute('aria-expanded'), 'false', `after ${name}`)
      assert.equal(await nav.getByRole('link', { name, exact: true }).isVisible(), false)
      await menu.click()
      const link = nav.getByRole('link', { name, exact: true })
      assert.equal(await link.getAttribute('aria-current'), 'page', name)
    }
    // The button closes it again; so does Escape, and the focus goes back to the button.
    await menu.click()
    assert.equal(await menu.getAttribute('aria-expanded'), 'false')
    await menu.click()
    await nav.getByRole('link', { name: 'Tasks' }).waitFor()
    await page.keyboard.press('Escape')
    assert.equal(await menu.getAttribute('aria-expanded'), 'false')
    assert.equal(await nav.getByRole('link', { name: 'Tasks' }).isVisible(), false)
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Menu')
    await page.close()
  })

  test('at phone width no page scrolls sideways', async () => {
    const page = await browser.page('phone')
    const routes = [
      ...NAV.map(([route]) => route),
      `/tasks/${taskId}`,
      `/sessions/${sessionId}`,
      `/workspaces/${workspaceId}`,
      '/agents/orchistrator',
    ]
    // The rows that made the Workspaces and Hooks pages wider than the screen.
    const rows: Record<string, string> = {
      '/workspaces': 'a-workspace-name',
      '/hooks': 'notify me',
    }
    const wide: string[] = []
    for (const route of routes) {
      await page.goto(`${url}/#${route}`)
      await page.locator('main h1').first().waitFor()
      const row = rows[route]
      if (row) await page.getByRole('cell', { name: row, exact: true }).waitFor()
      await page.waitForTimeout(300)
      const { scrollWidth, clientWidth } = await page.evaluate(() => {
        const { scrollWidth, clientWidth } = document.scrollingElement!
        return { scrollWidth, clientWidth }
      })
      if (scrollWidth > clientWidth) wide.push(`${route} is ${scrollWidth}px wide`)
    }
    assert.deepEqual(wide, [], `at ${VIEWPORTS.phone.width}px`)
    await page.close()
  })
})
