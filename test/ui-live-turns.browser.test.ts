/**
 * Live turns in a real browser against a real popagent (edge, compute host, Mastra, PostgreSQL)
 * with the scripted gateway behind it: a turn runs on the server whatever the page does, so a
 * reload rejoins it and shows it streaming to its end, a second tab shows the same stream and
 * can stop it, and a turn whose page was closed shows complete on the next visit.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { browserMissing, launchBrowser, type Browser } from './support/browser.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { until } from './support/until.ts'

const ROUTE = 'remote/selected'
const WORDS = Array.from({ length: 60 }, (_, i) => `w${i} `)
const ANSWER = WORDS.join('').trim()

describe('live turns in the chat page', { skip: browserMissing }, () => {
  let stack: TestStack
  let browser: Browser
  let url: string

  before(async () => {
    stack = await startTestStack({ models: [{ id: ROUTE, contextWindow: 131_072 }] })
    url = await stack.listen()
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await stack?.stop()
  })

  const message = (page: Page) => page.getByRole('textbox', { name: 'Message' })
  const reply = (page: Page) => page.locator('article.msg.assistant').last()
  const replyText = (page: Page) => reply(page).locator('.reply-text')
  const completions = () =>
    stack.gateway.requests.filter((r) => r.path === '/v1/chat/completions').length
  /** A new session with a turn streaming in it (about 40 ms a word); answers its id. */
  async function startTurn(page: Page, chunkDelayMs: number): Promise<string> {
    await page.goto(`${url}/#/`)
    await page.getByRole('button', { name: 'New chat' }).click()
    await page.waitForURL(/#\/sessions\/ses_/)
    await page.getByLabel('Model').selectOption(ROUTE)
    stack.gateway.respondWith(() => ({ text: WORDS, chunkDelayMs }))
    await message(page).fill('Count slowly')
    await message(page).press('Enter')
    await replyText(page).filter({ hasText: 'w2 ' }).waitFor()
    return /#\/sessions\/(ses_\w+)/.exec(page.url())![1]!
  }

  test('reloading mid-turn rejoins the same turn, which streams to its end', async () => {
    const page = await browser.page()
    try {
      const id = await startTurn(page, 40)
      const calls = completions()
      await page.reload()
      // The rejoined reply is still streaming: marked busy, in the sidebar too, and growing.
      await replyText(page).filter({ hasText: 'w2 ' }).waitFor()
      assert.equal(await reply(page).getAttribute('aria-busy'), 'true')
      assert.equal(await page.getByRole('button', { name: 'Stop' }).count(), 1)
      const link = page.locator(`a.session-link[href="#/sessions/${id}"]`)
      assert.match(await link.innerText(), /running/)
      assert.ok(!(await replyText(page).innerText()).includes('w59'), 'the turn had not ended')
      await replyText(page).filter({ hasText: 'w59' }).waitFor({ timeout: 15_000 })
      await page.getByRole('button', { name: 'Send' }).waitFor()
      assert.equal((await replyText(page).innerText()).trim(), ANSWER)
      assert.equal(await reply(page).getByText('Stopped before the reply finished.').count(), 0)
      assert.equal(completions(), calls, 'the same turn went on: no new model call')
      await until(async () => !/running/.test(await link.innerText()), 10_000, 'the mark to go')
    } finally {
      stack.gateway.respondWith(undefined)
      await page.close()
    }
  })

  test('a second tab shows the same live stream, and Stop from it stops the turn in both', async () => {
    const first = await browser.page()
    const second = await browser.page()
    try {
      const id = await startTurn(first, 100)
      await second.goto(`${url}/#/sessions/${id}`)
      await replyText(second).filter({ hasText: 'w3 ' }).waitFor()
      assert.equal(await reply(second).getAttribute('aria-busy'), 'true')
      await second.getByRole('button', { name: 'Stop' }).click()
      for (const page of [first, second]) {
        await reply(page).getByText('Stopped before the reply finished.').waitFor()
        await page.getByRole('button', { name: 'Send' }).waitFor()
      }
      await until(() => stack.gateway.active() === 0, 3_000, 'the gateway request to close')
      assert.ok(!(await replyText(first).innerText()).includes('w59'), 'the reply stopped early')
      // Saved as stopped: a reload shows the same.
      await first.reload()
      await reply(first).getByText('Stopped before the reply finished.').waitFor()
    } finally {
      stack.gateway.respondWith(undefined)
      await first.close()
      await second.close()
    }
  })

  test('a turn whose page was closed completes, and shows on the next visit', async () => {
    const page = await browser.page()
    let id: string
    try {
      id = await startTurn(page, 20)
      await page.close()
      await until(() => stack.gateway.active() === 0, 10_000, 'the turn to end')
    } finally {
      stack.gateway.respondWith(undefined)
    }
    const next = await browser.page()
    try {
      await next.goto(`${url}/#/sessions/${id}`)
      await replyText(next).filter({ hasText: 'w59' }).waitFor()
      assert.equal((await replyText(next).innerText()).trim(), ANSWER)
      assert.equal(await reply(next).getByText('Stopped before the reply finished.').count(), 0)
    } finally {
      await next.close()
    }
  })
})
