/**
 * The secrets page in a real browser against a real popagent holding a vault key: a secret is
 * saved, bound to an origin and rotated, and its value never appears on the page (nor in the
 * API's answers the page read); a refused origin shows the server's reason; delete asks first.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { browserMissing, launchBrowser, screenshotBoth, type Browser } from './support/browser.ts'
import { leaksIn } from './support/secret-forms.ts'
import { startTestStack, type TestStack } from './support/stack.ts'

describe('secrets page', { skip: browserMissing }, () => {
  let stack: TestStack
  let browser: Browser
  let url: string
  before(async () => {
    stack = await startTestStack({
      hostEnv: { POPAGENT_SECRET_KEY: randomBytes(32).toString('base64') },
    })
    url = await stack.listen()
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await stack?.stop()
  })

  test('saves, binds and rotates a secret without ever showing its value', async () => {
    const first = `ui-secret-${randomBytes(10).toString('hex')}`
    const second = `ui-rotated-${randomBytes(10).toString('hex')}`
    const page = await browser.page()
    const answers: string[] = []
    page.on('response', async (res) => {
      if (res.url().includes('/api/secrets')) answers.push(await res.text().catch(() => ''))
    })
    await page.goto(`${url}/#/secrets`)
    await page.getByLabel('Name').fill('DEPLOY_TOKEN')
    await page.getByLabel('Value', { exact: true }).fill(first)
    await page.getByRole('button', { name: 'Save secret' }).click()
    await page.getByRole('cell', { name: 'DEPLOY_TOKEN', exact: true }).waitFor()
    assert.equal(
      await page.getByLabel('Value', { exact: true }).inputValue(),
      '',
      'the value stays in the form',
    )

    await page.getByLabel('Origins of DEPLOY_TOKEN').fill('https://deploy.example.com/path')
    await page.getByRole('button', { name: 'Bind DEPLOY_TOKEN' }).click()
    await page.waitForFunction(() =>
      [...document.querySelectorAll('input')].some((i) => i.value === 'https://deploy.example.com'),
    )
    await page.getByLabel('New value of DEPLOY_TOKEN').fill(second)
    await page.getByRole('button', { name: 'Rotate DEPLOY_TOKEN' }).click()
    await page.getByRole('cell', { name: '2', exact: true }).waitFor()
    await screenshotBoth(page, 'secrets')

    await page.getByLabel('Origins of DEPLOY_TOKEN').fill('http://plain.example.com')
    await page.getByRole('button', { name: 'Bind DEPLOY_TOKEN' }).click()
    await page.getByRole('alert').waitFor()
    assert.match(await page.getByRole('alert').innerText(), /https/)

    const html = await page.content()
    assert.deepEqual(leaksIn(html + answers.join('\n'), [first, second]), [])
    assert.ok(answers.length >= 3, 'the page read no answers')

    await page.getByRole('button', { name: 'Delete DEPLOY_TOKEN' }).click()
    await page.getByRole('button', { name: 'Delete secret' }).click()
    await page.getByText('No secrets yet.').waitFor()
  })
})
