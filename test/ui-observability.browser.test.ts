/**
 * The observability pages in a real browser: a turn with a delegation and a tool call shows in
 * the traces list and as a waterfall (supervisor steps, the delegation, the specialist's tool call
 * inside it), the session header shows the session's tokens and cost from a price set through
 * the API, and thumbs-down with a comment on the answer is stored with the turn's trace.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { json } from './support/app.ts'
import { createSession } from './support/api-fixtures.ts'
import { browserMissing, launchBrowser, screenshotBoth, type Browser } from './support/browser.ts'
import { markRoles, postChat, roleOf, toolResultsOf } from './support/chat.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { readUiStream } from './support/ui-stream.ts'

const MODEL = 'remote/obs-ui'

describe('observability pages', { skip: browserMissing }, () => {
  let stack: TestStack
  let browser: Browser
  let url: string
  before(async () => {
    stack = await startTestStack({ models: [{ id: MODEL }] })
    url = await stack.listen()
    await markRoles(stack, ['orchistrator', 'researcher'])
    await stack.host.resources.observability.initialised
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await stack?.stop()
  })

  test('traces list, waterfall, session cost and feedback', async () => {
    const price = await stack.edge().request(
      '/api/observability/prices',
      json(
        {
          model: MODEL,
          inputUsdPerMtok: 3,
          outputUsdPerMtok: 15,
          effectiveFrom: new Date(Date.now() - 60_000).toISOString(),
        },
        { method: 'PUT' },
      ),
    )
    assert.equal(price.status, 200)
    const sessionId = await createSession(stack.edge(), 'wsp_default')
    stack.gateway.respondWith((r) => {
      const answered = toolResultsOf(r).length > 0
      if (roleOf(r) === 'orchistrator') {
        return answered
          ? {
              text: 'The researcher looked it up.',
              usage: { promptTokens: 900, completionTokens: 60 },
            }
          : {
              toolCalls: [{ name: 'agent-researcher', arguments: { prompt: 'look it up' } }],
              usage: { promptTokens: 400, completionTokens: 20 },
            }
      }
      return answered
        ? { text: 'found', chunkDelayMs: 20, usage: { promptTokens: 50, completionTokens: 10 } }
        : {
            toolCalls: [{ name: 'web-search', arguments: { query: 'tracing' } }],
            delayMs: 120,
            usage: { promptTokens: 40, completionTokens: 5 },
          }
    })
    try {
      await readUiStream(await postChat(url, { sessionId, model: MODEL, text: 'Look it up' }))
    } finally {
      stack.gateway.respondWith(undefined)
    }
    await stack.host.resources.observability.queue.flush()

    const page = await browser.page()
    // The session header: 1,390 in at $3/Mtok, 95 out at $15/Mtok.
    await page.goto(`${url}/#/sessions/${sessionId}`)
    const header = page.locator('.session-header .usage-line')
    await header.waitFor()
    assert.match(await header.innerText(), /1,390 in · 95 out · \$0\.0056/)
    // Thumbs down with a comment on the answer.
    await page.getByRole('button', { name: 'Bad answer' }).click()
    await page.getByLabel('Comment (optional)').fill('missed the point')
    await page.getByRole('button', { name: 'Send feedback' }).click()
    await page.getByText('Thanks: feedback saved.').waitFor()

    await page.goto(`${url}/#/observability`)
    const traces = page.locator('.card', { has: page.getByRole('heading', { name: 'Traces' }) })
    const link = traces.getByRole('link').first()
    await link.waitFor()
    assert.match(await traces.innerText(), /turn\s+ok/)
    // The run is named by its session's title and links to the conversation, not an id.
    const subject = traces.getByRole('link', { name: 'Look it up' }).first()
    assert.match((await subject.getAttribute('href')) ?? '', new RegExp(`/sessions/${sessionId}$`))
    assert.match(
      await page.locator('.card', { hasText: 'Feedback' }).innerText(),
      /missed the point/,
    )
    await screenshotBoth(page, 'observability-overview')

    await link.click()
    const waterfall = page.getByRole('table', { name: 'Spans of the trace' })
    await waterfall.waitFor()
    const names = await waterfall.locator('.wf-name').allInnerTexts()
    assert.equal(names[0]!.trim(), 'turn')
    assert.ok(
      names.some((n) => n.startsWith('agent ')),
      names.join(' | '),
    )
    assert.ok(
      names.some((n) => n.includes('tool web-search')),
      names.join(' | '),
    )
    // The tool call is drawn inside the delegation: indented one level further.
    const indent = async (text: string) =>
      waterfall
        .locator('.wf-name', { hasText: text })
        .first()
        .evaluate((el) => el.style.paddingLeft)
    assert.equal(await indent('agent '), '1.1rem')
    assert.equal(await indent('tool web-search'), '2.2rem')
    await waterfall.locator('.wf-row', { hasText: 'tool web-search' }).click()
    assert.match(await page.locator('.wf-detail').innerText(), /tracing/)
    await screenshotBoth(page, 'observability-trace-waterfall')
    await page.close()
  })
})
