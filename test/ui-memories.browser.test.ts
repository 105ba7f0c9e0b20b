/**
 * The memories page in a real browser against a real popagent: the owner writes, searches, edits
 * and deletes a memory of their own; an agent's fact shows read-only with its history and a link
 * to the session it was learnt in; a session's export downloads from the chat.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import * as Memories from '../runtime/memories/index.ts'
import { createSession } from './support/api-fixtures.ts'
import { browserMissing, launchBrowser, screenshotBoth, type Browser } from './support/browser.ts'
import { startTestStack, type TestStack } from './support/stack.ts'

describe('memories page', { skip: browserMissing }, () => {
  let stack: TestStack
  let browser: Browser
  let url: string
  let sessionId: string
  before(async () => {
    stack = await startTestStack()
    url = await stack.listen()
    browser = await launchBrowser()
    sessionId = await createSession(stack.edge())
    for (const content of ['the repository uses npm', 'the repository moved to pnpm']) {
      await Memories.retainFact(stack.database.db, {
        owner: 'agent',
        agentId: 'implementer',
        key: 'package-manager',
        content,
        provenance: { sessionId, turnId: 'trn_01M8XPEY48CQTQSP1MTH41ZBVA' },
      })
    }
  })
  after(async () => {
    await browser?.close()
    await stack?.stop()
  })

  test('write, search, edit and delete a memory; a fact is read-only with its history', async () => {
    const page = await browser.page()
    await page.goto(`${url}/#/memories`)
    await page.getByLabel('Remember').fill('Release branches are cut on Mondays')
    await page.getByRole('button', { name: 'Add memory' }).click()
    // The new memory opens for editing.
    const text = page.getByLabel('Memory text')
    await text.waitFor()
    assert.equal(await text.inputValue(), 'Release branches are cut on Mondays')
    await text.fill('Release branches are cut on Tuesdays')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByText('Saved').waitFor()
    await page.getByRole('link', { name: 'Release branches are cut on Tuesdays' }).waitFor()

    // Search narrows the list; the agent's fact is found by its words.
    await page.getByLabel('Search memories').fill('pnpm')
    await page.getByRole('button', { name: 'Search' }).click()
    await page.getByRole('link', { name: 'Release branches are cut on Tuesdays' }).waitFor({
      state: 'detached',
    })
    await page.getByRole('link', { name: 'the repository moved to pnpm' }).click()
    const history = page.getByRole('list', { name: 'History' })
    await history.waitFor()
    const versions = await history.locator('li').allInnerTexts()
    assert.equal(versions.length, 2)
    assert.match(versions[0]!, /the repository uses npm[\s\S]*superseded/)
    assert.match(versions[1]!, /the repository moved to pnpm[\s\S]*current/)
    assert.equal(await page.getByLabel('Memory text').count(), 0, 'a fact cannot be edited')
    const source = page.getByRole('link', { name: `session ${sessionId}` }).first()
    assert.equal(await source.getAttribute('href'), `#/sessions/${sessionId}`)
    await screenshotBoth(page, 'memories')

    // Deleting the user's memory asks first, then it is gone.
    await page.getByLabel('Search memories').fill('')
    await page.getByRole('button', { name: 'Search' }).click()
    await page.getByRole('link', { name: 'Release branches are cut on Tuesdays' }).click()
    await page.getByRole('button', { name: 'Delete memory' }).click()
    await page.getByRole('button', { name: 'Delete', exact: true }).last().click()
    await page.getByRole('link', { name: 'Release branches are cut on Tuesdays' }).waitFor({
      state: 'detached',
    })
    const left = await Memories.list(stack.database.db, { history: 'false', limit: 10 })
    assert.deepEqual(
      left.map((m) => m.content),
      ['the repository moved to pnpm'],
    )
  })

  test('the session offers its export as a download', async () => {
    const page = await browser.page()
    await page.goto(`${url}/#/sessions/${sessionId}`)
    await page.getByRole('button', { name: 'Export Markdown' }).waitFor()
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export Markdown' }).click(),
    ])
    assert.equal(download.suggestedFilename(), `popagent-${sessionId}.md`)
  })
})
