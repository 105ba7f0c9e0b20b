/**
 * Signing in from the link `popagent start` prints, in a real browser against a real popagent on
 * a fresh data directory: the link's `#key=` fragment signs the UI in, leaves the address bar at
 * once, and the key is kept for reloads. A browser without the key is told where to find it.
 * Every page also loads under the edge's Content-Security-Policy with nothing refused: no script,
 * and no inline style (the UI styles through classes).
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { browserMissing, launchBrowser, screenshotBoth, type Browser } from './support/browser.ts'
import { startFreshPopagent, type FreshPopagent, type RunningCli } from './support/process.ts'

describe('signing in with the printed link', { skip: browserMissing }, () => {
  let dataDir: string
  let popagent: FreshPopagent | undefined
  let cli: RunningCli
  let browser: Browser
  let link: string
  let key: string

  before(async () => {
    popagent = await startFreshPopagent('ui-login')
    ;({ cli, dataDir, key, link } = popagent)
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await popagent?.dispose()
  })

  /** The statuses of the page's /api answers and the policy violations it reports. */
  const watch = (page: Page) => {
    const api: number[] = []
    const violations: string[] = []
    page.on('response', (r) => {
      if (new URL(r.url()).pathname.startsWith('/api/')) api.push(r.status())
    })
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text())
    })
    return { api, violations }
  }

  test('the #key= link signs the UI in and the key leaves the address bar', async () => {
    assert.equal(link, `${cli.url}/#key=${key}`)
    const page = await browser.page()
    page.setDefaultTimeout(20_000)
    const seen = watch(page)
    await page.goto(link)
    await page.waitForFunction(() => !location.href.includes('key='))
    assert.doesNotMatch(page.url(), /key=/)
    assert.equal(await page.evaluate(() => history.length), 2, 'no entry was added for the key')
    assert.equal(await page.evaluate(() => localStorage.getItem('popagent.apiKey')), key)
    // The UI works with it: its API calls are answered, and no key prompt is shown.
    await page.goto(`${cli.url}/#/tasks`)
    await page.getByRole('heading', { name: 'Tasks' }).waitFor()
    await page.waitForFunction(() => document.querySelector('table, .empty, p') !== null)
    await page.waitForTimeout(300)
    assert.ok(seen.api.length > 0, 'the UI called the API')
    assert.ok(
      seen.api.every((s) => s !== 401),
      `answers: ${seen.api.join(', ')}`,
    )
    assert.equal(await page.getByLabel('API key').count(), 0)
    await page.reload()
    await page.getByRole('heading', { name: 'Tasks' }).waitFor()
    assert.equal(await page.getByLabel('API key').count(), 0)
    await screenshotBoth(page, 'signed-in-from-link')
    await page.close()
  })

  test('without the key, the prompt says where the key is', async () => {
    const page = await browser.page()
    try {
      await page.goto(`${cli.url}/#/tasks`)
      await page.evaluate(() => localStorage.removeItem('popagent.apiKey'))
      await page.reload()
      const prompt = page.getByText('This popagent needs its API key')
      await prompt.waitFor()
      assert.match(await prompt.innerText(), /api-key file in its data directory/)
      assert.match(await prompt.innerText(), /POPAGENT_API_KEY/)
    } finally {
      // The browser profile is shared by the tests: sign it in again.
      await page.evaluate((k) => localStorage.setItem('popagent.apiKey', k), key)
      await page.close()
    }
  })

  test('every page loads under the Content-Security-Policy', async () => {
    const page = await browser.page()
    page.setDefaultTimeout(20_000)
    const seen = watch(page)
    const blockedScripts: string[] = []
    page.on('pageerror', (e) => blockedScripts.push(e.message))
    for (const [route, heading] of [
      ['/', undefined],
      ['/tasks', 'Tasks'],
      ['/schedules', 'Schedules'],
      ['/agents', 'Agents'],
      ['/agents/orchistrator', undefined],
      ['/settings', 'Settings'],
      ['/workspaces', 'Workspaces'],
    ] as const) {
      await page.goto(`${cli.url}/#${route}`)
      if (heading) await page.getByRole('heading', { name: heading, exact: true }).first().waitFor()
      else await page.locator('main').waitFor()
      await page.waitForTimeout(200)
    }
    const csp = await page.evaluate(() =>
      fetch('/').then((r) => r.headers.get('content-security-policy')),
    )
    assert.match(csp ?? '', /^default-src 'self'/)
    assert.deepEqual(blockedScripts, [])
    assert.deepEqual(seen.violations, [], 'the policy refused something while touring the UI')
    await page.close()
  })
})
