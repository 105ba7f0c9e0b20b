/**
 * The workspaces page in a real browser against a real popagent: the registry lists what the API
 * holds, a new repository registers, and its repository brief shows.
 */
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { browserMissing, launchBrowser, screenshotBoth, type Browser } from './support/browser.ts'
import { startTestStack, type TestStack } from './support/stack.ts'

describe('workspaces page', { skip: browserMissing }, () => {
  let stack: TestStack
  let browser: Browser
  let url: string
  let root: string
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'popagent-ui-ws-'))
    await mkdir(join(root, 'shop', 'src'), { recursive: true })
    await writeFile(join(root, 'shop', 'src', 'cart.ts'), 'export function addToCart() {}\n')
    stack = await startTestStack({ hostEnv: { POPAGENT_WORKSPACE_ROOT: root } })
    url = await stack.listen()
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await stack?.stop()
    await rm(root, { recursive: true, force: true })
  })

  test('registers a repository and shows its brief', async () => {
    const page = await browser.page()
    await page.goto(`${url}/#/workspaces`)
    await page.getByLabel('Name').fill('shop')
    await page.getByLabel('Path under the workspace root').fill('shop')
    await page.getByRole('button', { name: 'Register' }).click()
    await page.getByRole('link', { name: 'shop' }).click()
    await page.getByLabel('Brief query').fill('cart')
    await page.getByRole('button', { name: 'Brief' }).click()
    await page.locator('pre.brief').waitFor()
    assert.match(await page.locator('pre.brief').innerText(), /src\/cart\.ts/)
    await screenshotBoth(page, 'workspaces')
    // A bad path is refused with the server's message, and nothing is listed for it.
    await page.getByLabel('Name').fill('nowhere')
    await page.getByLabel('Path under the workspace root').fill('../outside')
    await page.getByRole('button', { name: 'Register' }).click()
    await page.getByRole('alert').waitFor()
    assert.match(await page.getByRole('alert').innerText(), /inside the workspace root|outside/)
    assert.equal(await page.getByRole('link', { name: 'nowhere' }).count(), 0)
  })
})
