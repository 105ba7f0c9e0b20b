/**
 * The Browser page's recordings in a real browser against a real popagent and the reference
 * browser MCP server (issue 37): a session's kept trace is listed, downloads byte for byte and is
 * deleted from the page; with a server lacking the tracing operations, recording is greyed out
 * with what the server lacks.
 */
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { createSession } from './support/api-fixtures.ts'
import { browserMissing, launchBrowser, type Browser } from './support/browser.ts'
import { startBrowserMcpServer, type BrowserMcpServer } from './support/browser-mcp-server.ts'
import { markRoles, messagesOf, postChat, roleOf } from './support/chat.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient } from './support/typed-client.ts'
import { readUiStream } from './support/ui-stream.ts'
import { until } from './support/until.ts'

describe('browser recordings on the Browser page', { skip: browserMissing }, () => {
  let dir: string
  let mcp: BrowserMcpServer
  let site: Server
  let stack: TestStack
  let url: string
  let browser: Browser
  let api: ReturnType<typeof typedClient>['api']

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'popagent-ui-recordings-'))
    site = createServer((_req, res) => res.end('<!doctype html><title>Recorded</title><p>hi'))
    ;[mcp, stack, browser] = await Promise.all([
      startBrowserMcpServer({ dir, recordings: true }),
      startTestStack({
        models: [{ id: 'remote/a' }],
        hostEnv: {
          POPAGENT_BROWSER_SOCKET: join(dir, 'sock', 'mcp.sock'),
          POPAGENT_BROWSER_OUTPUT_DIR: join(dir, 'out'),
          POPAGENT_BROWSER_ALLOW_LOOPBACK: 'on',
          POPAGENT_DATA_DIR: join(dir, 'data'),
        },
      }),
      launchBrowser(),
      new Promise<void>((done) => site.listen(0, '127.0.0.1', done)),
    ])
    url = await stack.listen()
    await markRoles(stack, ['orchistrator'])
    api = typedClient(stack.edge()).api
    await okJson(await api.settings.browser.$patch({ json: { enabled: true } }), 200)
    await okJson(
      await api.agents[':id'].$patch({
        param: { id: 'orchistrator' },
        json: { browserAccess: 'read-only', tools: ['browser'] },
      }),
      200,
    )
  })
  after(async () => {
    await browser?.close()
    await stack?.stop()
    await mcp?.dispose()
    site?.close()
    await rm(dir, { recursive: true, force: true })
  })

  test('a kept trace is listed, downloaded byte for byte and deleted; a server without tracing greys recording out', async () => {
    const session = await createSession(stack.edge())
    const page = `http://127.0.0.1:${(site.address() as { port: number }).port}/`
    // Each turn's supervisor opens the page once (the first opens the chat's browser session).
    stack.gateway.respondWith((r) =>
      roleOf(r) !== 'orchistrator'
        ? undefined
        : messagesOf(r).at(-1)?.role === 'user'
          ? {
              toolCalls: [
                {
                  name: 'browser',
                  arguments: { operation: 'browser_navigate', arguments: { url: page } },
                },
              ],
            }
          : { text: 'Done.' },
    )
    await readUiStream(await postChat(url, { sessionId: session, text: 'Open it.' }))
    const listed = await okJson(await api.browser.sessions.$get(), 200)
    const id = listed.sessions.find((s) => s.chatSessionId === session && !s.closedAt)!.id
    const sessionApi = api.browser.sessions[':id']
    await okJson(await sessionApi.recording.$post({ param: { id } }), 201)
    await readUiStream(await postChat(url, { sessionId: session, text: 'Again.' }))
    const kept = await okJson(await sessionApi.recording.stop.$post({ param: { id } }), 200)
    const onDisk = await readFile(join(dir, 'data', 'browser-recordings', `${kept.id}.zip`))

    const tab = await browser.page()
    tab.setDefaultTimeout(20_000)
    await tab.goto(`${url}/#/browser`)
    const row = tab.getByRole('row').filter({ hasText: id })
    await row.getByText('Recordings').click()
    const recordings = row.getByRole('list', { name: `Recordings of ${id}` })
    await recordings.getByText('ready').waitFor()
    const [download] = await Promise.all([
      tab.waitForEvent('download'),
      recordings.getByRole('button', { name: 'Download' }).click(),
    ])
    assert.match(download.suggestedFilename(), /^popagent-trace-brr_.+\.zip$/)
    assert.ok((await readFile((await download.path())!)).equals(onDisk), 'the exact bytes')
    await recordings.getByRole('button', { name: 'Delete' }).click()
    await recordings.getByText('None yet.').waitFor()
    assert.deepEqual(
      (await okJson(await sessionApi.recordings.$get({ param: { id } }))).recordings,
      [],
    )
    assert.ok(
      await row.getByRole('button', { name: 'Start recording' }).isEnabled(),
      'recording is offered while the server has tracing',
    )

    // The server comes back without tracing: the page says what it lacks and greys recording out.
    await mcp.stop()
    await mcp.restart({ recordings: false })
    // popagent reconnects by itself with backoff (a busy machine may see the restarted server's
    // socket before it answers, which backs off further): wait for it, up to the backoff's cap.
    await until(
      async () => (await okJson(await api.browser.health.$get(), 200)).mcp.ok,
      45_000,
      'popagent reconnected to the restarted server',
    )
    await readUiStream(await postChat(url, { sessionId: session, text: 'Once more.' }))
    await tab.reload()
    const open = tab
      .getByRole('row')
      .filter({ hasText: 'open' })
      .filter({ has: tab.getByRole('link', { name: 'chat' }) })
      .first()
    await open.getByText('Recordings').click()
    await open
      .getByText(
        'Recording is unavailable: the server lacks browser_start_tracing, browser_stop_tracing.',
      )
      .waitFor()
    assert.equal(await open.getByRole('button', { name: 'Start recording' }).isDisabled(), true)
    await tab.close()
  })
})
