/**
 * The MCP servers section of the Agents page and the agent editor's choice of servers, in a real
 * browser against a real popagent and a loopback MCP server built with the SDK: a server added
 * from the form, then an agent given its tools from the editor, one tool unticked there, and the
 * server taken back, read back through the API.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { browserMissing, launchBrowser, screenshotBoth, type Browser } from './support/browser.ts'
import { startMcpHttpServer, type McpHttpTestServer } from './support/mcp-http-server.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient } from './support/typed-client.ts'

describe('MCP servers in the UI', { skip: browserMissing }, () => {
  let stack: TestStack
  let mcp: McpHttpTestServer
  let browser: Browser
  let page: Page
  let url: string
  const api = () => typedClient(stack.edge()).api
  // Waiting from before the click: a save that answers first is not missed.
  const patched = () =>
    page.waitForResponse(
      (r) => r.url().includes('/api/mcp-servers/tests') && r.request().method() === 'PATCH',
    )

  before(async () => {
    mcp = await startMcpHttpServer()
    stack = await startTestStack({
      models: [{ id: 'remote/a' }],
      hostEnv: { POPAGENT_SECRET_KEY: randomBytes(32).toString('base64') },
    })
    url = await stack.listen()
    browser = await launchBrowser()
    page = await browser.page()
    page.setDefaultTimeout(20_000)
  })
  after(async () => {
    await browser?.close()
    await stack?.stop()
    await mcp?.stop()
  })

  test('a server added from the form, then given to an agent and taken back in its editor', async () => {
    await page.goto(`${url}/#/agents`)
    const form = page.getByRole('form', { name: 'New MCP server' })
    await form.getByLabel('Id').fill('tests')
    await form.getByLabel('Name').fill('Test tools')
    await form.getByLabel('URL').fill(mcp.url)
    await form.getByLabel('Allow loopback').check()
    await form.getByLabel('Researcher').check()
    await form.getByRole('button', { name: 'Add server' }).click()
    const table = page.getByRole('table', { name: 'MCP servers' })
    await table.getByText('Test tools').waitFor()
    const [saved] = (await okJson(await api()['mcp-servers'].$get(), 200)).servers
    assert.deepEqual(saved?.agentIds, ['researcher'])
    assert.equal(saved?.allowLoopback, true)
    await screenshotBoth(page, 'mcp-servers')

    // The editor of another agent: give it the server, then take it away again.
    await page.goto(`${url}/#/agents/reviewer`)
    const choice = page.getByRole('region', { name: 'MCP servers of this agent' })
    const box = choice.getByRole('checkbox', { name: /Test tools/ })
    await Promise.all([patched(), box.check()])
    const given = await okJson(await api()['mcp-servers'][':id'].$get({ param: { id: 'tests' } }))
    assert.deepEqual([...given.agentIds].sort(), ['researcher', 'reviewer'])
    // Its tools, each with a box and whether it runs here; one unticked is a choice saved.
    const picture = choice.getByRole('checkbox', { name: /tests__picture/ })
    await choice.getByText('tests__echo').waitFor()
    assert.equal(await picture.isChecked(), true)
    await Promise.all([patched(), picture.uncheck()])
    await choice.getByText('not chosen for this agent').waitFor()
    const chosen = await okJson(await api()['mcp-servers'][':id'].$get({ param: { id: 'tests' } }))
    const reviewerTools = chosen.agentTools['reviewer'] ?? []
    assert.ok(
      reviewerTools.includes('echo') && !reviewerTools.includes('picture'),
      `${reviewerTools}`,
    )
    await screenshotBoth(page, 'agent-mcp-tools')
    await Promise.all([patched(), box.uncheck()])
    const taken = await okJson(await api()['mcp-servers'][':id'].$get({ param: { id: 'tests' } }))
    assert.deepEqual(taken.agentIds, ['researcher'])
    assert.deepEqual(taken.agentTools, {})
  })

  test("a stdio server's variable takes a vault secret chosen by name in the form", async () => {
    const secret = await okJson(
      await api().secrets.$post({ json: { name: 'FORM_TOKEN', value: 'form-secret-value-1' } }),
      201,
    )
    // A fresh load: the form's list of secrets is read when the page is.
    await page.goto(`${url}/#/agents`)
    await page.reload()
    const form = page.getByRole('form', { name: 'New MCP server' })
    await form.getByLabel('Id').fill('local')
    await form.getByLabel('Name').fill('Local program')
    await form.getByLabel('Transport').selectOption('stdio')
    await form.getByLabel(/Command/).fill('node\nserver.js')
    await form.getByLabel(/Variables from the vault/).fill('SERVICE_TOKEN=FORM_TOKEN')
    await form.getByRole('button', { name: 'Add server' }).click()
    await page.getByRole('table', { name: 'MCP servers' }).getByText('Local program').waitFor()
    const saved = await okJson(
      await api()['mcp-servers'][':id'].$get({ param: { id: 'local' } }),
      200,
    )
    assert.deepEqual(saved.secretEnv, [{ name: 'SERVICE_TOKEN', secretId: secret.id }])
    assert.doesNotMatch(JSON.stringify(saved), /form-secret-value-1/)
    await okJson(await api()['mcp-servers'][':id'].$delete({ param: { id: 'local' } }), 200)
  })
})
