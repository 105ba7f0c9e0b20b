/**
 * The hooks page in a real browser against a real popagent: a command hook is added, disabled
 * and enabled again, test-run (its deny and reason show with the audit row), and the session
 * audit lists the runs of a real turn's hook. Command hooks run in bubblewrap: skipped, with the
 * reason, where it cannot run.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { checkSandbox } from '../compute-host/workspaces/sandbox-check.ts'
import { createSession } from './support/api-fixtures.ts'
import { browserMissing, launchBrowser, screenshotBoth, type Browser } from './support/browser.ts'
import { postChat } from './support/chat.ts'
import { startTestStack, type TestStack } from './support/stack.ts'

const sandbox = await checkSandbox()
const skip =
  browserMissing ||
  (!sandbox.available && `bubblewrap cannot run (${sandbox.reason}): apt install bubblewrap`)

describe('hooks page', { skip }, () => {
  let stack: TestStack
  let browser: Browser
  let url: string
  before(async () => {
    stack = await startTestStack({ models: [{ id: 'remote/a' }] })
    stack.gateway.respondWith(() => ({ text: 'hello' }))
    url = await stack.listen()
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await stack?.stop()
  })

  test('adds a hook, toggles it, test-runs it and shows a session audit', async () => {
    const page = await browser.page()
    await page.goto(`${url}/#/hooks`)
    await page.getByLabel('Name').fill('no prompts about prod')
    await page.getByLabel('Event').selectOption('UserPromptSubmit')
    await page
      .getByLabel('Command, one argument per line')
      .fill(`sh\n-c\ncat >/dev/null; echo '{"decision":"deny","reason":"prod is off limits"}'`)
    await page.getByRole('button', { name: 'Add hook' }).click()
    await page.getByRole('cell', { name: 'no prompts about prod', exact: true }).waitFor()

    const enabled = page.getByLabel('Enable no prompts about prod')
    assert.equal(await enabled.isChecked(), true)
    await enabled.uncheck()
    await page.waitForTimeout(300)
    await page.reload()
    assert.equal(await page.getByLabel('Enable no prompts about prod').isChecked(), false)
    await page.getByLabel('Enable no prompts about prod').check()

    // Edited in place: only the priority changes.
    await page.getByRole('button', { name: 'Edit no prompts about prod' }).click()
    await page.getByLabel('Hook priority').fill('7')
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await page.getByRole('cell', { name: '7', exact: true }).waitFor()

    await page.getByRole('button', { name: 'Test no prompts about prod' }).click()
    const result = page.getByRole('status', { name: 'Test run' })
    await result.waitFor()
    assert.match(await result.innerText(), /Test run: deny/)
    assert.match(await result.innerText(), /prod is off limits/)

    // A real turn the hook denies, then its audit row by session.
    const sessionId = await createSession(stack.edge())
    const res = await postChat(url, { sessionId, model: 'remote/a', text: 'deploy to prod' })
    assert.equal(res.status, 422)
    await res.text()
    await page.getByLabel('Session id').fill(sessionId)
    await page.getByRole('button', { name: 'Show runs' }).click()
    await page.getByRole('table', { name: 'Hook runs' }).last().waitFor()
    assert.match(
      await page.getByRole('table', { name: 'Hook runs' }).last().innerText(),
      /UserPromptSubmit[\s\S]*deny[\s\S]*prod is off limits/,
    )
    await screenshotBoth(page, 'hooks')
  })
})
