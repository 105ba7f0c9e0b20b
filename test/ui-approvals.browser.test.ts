/**
 * Pending approvals on the Channels page, in a real browser against a real popagent: a turn's
 * delegation waits on an HTTP PreToolUse hook's `ask`; the question shows on the page with the
 * tool and its arguments, and the owner's Allow there lets the call run.
 */
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { createSession } from './support/api-fixtures.ts'
import { browserMissing, launchBrowser, screenshotBoth, type Browser } from './support/browser.ts'
import { markRoles, postChat, roleOf, toolResultsOf } from './support/chat.ts'
import { closerOf, listenOnLoopback } from './support/loopback-server.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient } from './support/typed-client.ts'
import { readUiStream } from './support/ui-stream.ts'

describe('pending approvals on the Channels page', { skip: browserMissing }, () => {
  let stack: TestStack
  let browser: Browser
  let url: string
  let closeHook: () => Promise<void>
  before(async () => {
    stack = await startTestStack({ models: [{ id: 'remote/a' }] })
    url = await stack.listen()
    await markRoles(stack, ['orchistrator', 'implementer'])
    stack.gateway.respondWith((request) => {
      if (roleOf(request) === 'implementer') return { text: 'IMPLEMENTED-MARK' }
      return toolResultsOf(request).length === 0
        ? { toolCalls: [{ name: 'agent-implementer', arguments: { prompt: 'rename the flag' } }] }
        : { text: 'done' }
    })
    const hook = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ decision: 'ask', reason: 'delegations need a yes' }))
      })
    })
    closeHook = closerOf(hook)
    const port = await listenOnLoopback(hook)
    const api = typedClient(stack.edge()).api
    await okJson(
      await api.hooks.$post({
        json: {
          name: 'ask the owner',
          event: 'PreToolUse',
          kind: 'http',
          matcher: 'agent-implementer',
          url: `http://127.0.0.1:${port}/ask`,
          allowLoopback: true,
        },
      }),
      201,
    )
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await stack?.stop()
    await closeHook?.()
  })

  test('the waiting call is listed with its arguments, and Allow lets it run', async () => {
    const sessionId = await createSession(stack.edge())
    const turn = postChat(url, { sessionId, model: 'remote/a', text: 'please delegate' }).then(
      readUiStream,
    )
    const page = await browser.page()
    page.setDefaultTimeout(20_000)
    await page.goto(`${url}/#/channels`)
    const list = page.getByRole('table', { name: 'Pending approvals' })
    await list.getByRole('cell', { name: 'agent-implementer' }).waitFor()
    assert.match(await list.innerText(), /rename the flag/)
    assert.match(await list.innerText(), /delegations need a yes/)
    await screenshotBoth(page, 'channels-pending-approval')
    await list.getByRole('button', { name: 'Allow' }).click()
    await page.getByText('No tool call is waiting for an answer.').waitFor()
    await turn
    assert.ok(
      stack.gateway.requests.some((r) => roleOf(r) === 'implementer'),
      'the allowed call did not run',
    )
    await page.close()
  })
})
