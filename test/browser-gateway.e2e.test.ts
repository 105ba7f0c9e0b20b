/**
 * Browser automation end to end (issue 37): real turns with the scripted gateway, the reference
 * browser MCP server (Playwright's, on Debian's Chromium) on a protected Unix socket in its own
 * process, and a loopback test site. One browser server is shared by the turn cases; the health
 * and fault cases start their own.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmod, mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { createServer as createHttpServer, type Server } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { createServer as createNetServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inflateRawSync } from 'node:zlib'
import { after, before, describe, test } from 'node:test'
import postgres from 'postgres'
import { createBrowserServer } from '../compute-host/browser/server-connection.ts'
import { checkBrowserSocket } from '../compute-host/browser/socket-check.ts'
import { socketLinkOpener } from '../compute-host/browser/mcp-link.ts'
import { createSession } from './support/api-fixtures.ts'
import { browserMissing } from './support/browser.ts'
import { startBrowserMcpServer, type BrowserMcpServer } from './support/browser-mcp-server.ts'
import {
  markRoles,
  messagesOf,
  offeredTools,
  postChat,
  roleOf,
  toolResultsOf,
} from './support/chat.ts'
import type { RecordedRequest, Reply, ToolCallScript } from './support/scripted-gateway.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { leaksIn } from './support/secret-forms.ts'
import { okJson, typedClient } from './support/typed-client.ts'
import { readUiStream } from './support/ui-stream.ts'

const PAGE = `<!doctype html><title>Loopback site</title>
<h1 id="title">Browser test page</h1>
<button onclick="document.getElementById('title').textContent = 'Clicked ' + (++window.n || (window.n = 1))">Press</button>`

function startSite(): Promise<{ url: string; server: Server }> {
  const server = createHttpServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' })
    res.end(PAGE)
  })
  return new Promise((done) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address() as { port: number }
      done({ url: `http://127.0.0.1:${address.port}/`, server })
    }),
  )
}

const LOGIN = `<!doctype html><title>Sign in</title>
<label>Password <input id="pw" type="password" oninput="document.getElementById('n').textContent = 'typed ' + this.value.length"></label>
<p id="n">typed 0</p>`

/** An HTTPS site (a throwaway self-signed certificate) on 127.0.0.1, also reachable as localhost. */
async function startHttpsSite(dir: string): Promise<{ port: number; server: Server }> {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  )
  const server = createHttpsServer(
    { key: await readFile(join(dir, 'key.pem')), cert: await readFile(join(dir, 'cert.pem')) },
    (req, res) => {
      const port = (server.address() as { port: number }).port
      const body =
        req.url === '/framed'
          ? `<!doctype html><title>Framed</title><iframe src="https://localhost:${port}/login"></iframe>`
          : LOGIN
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end(body)
    },
  )
  return new Promise((done) =>
    server.listen(0, '127.0.0.1', () =>
      done({ port: (server.address() as { port: number }).port, server }),
    ),
  )
}

/** Every row of every table as JSON (what a dump of the data would hold). */
async function tableText(url: string): Promise<string> {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  try {
    const tables = await sql<{ s: string; t: string }[]>`
      select table_schema as s, table_name as t from information_schema.tables
      where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`
    let text = ''
    for (const { s, t } of tables) {
      const rows = await sql.unsafe(`select row_to_json(x)::text as j from "${s}"."${t}" x`)
      for (const row of rows) text += `${s}.${t} ${row.j}\n`
    }
    return text
  } finally {
    await sql.end({ timeout: 5 })
  }
}

/** A zip's entries, inflated (the packed trace is a plain deflate zip). */
function unzip(zip: Buffer): Map<string, Buffer> {
  const entries = new Map<string, Buffer>()
  let at = 0
  while (zip.readUInt32LE(at) === 0x04034b50) {
    const packed = zip.readUInt32LE(at + 18)
    const nameLength = zip.readUInt16LE(at + 26)
    const extra = zip.readUInt16LE(at + 28)
    const name = zip.subarray(at + 30, at + 30 + nameLength).toString('utf8')
    const start = at + 30 + nameLength + extra
    entries.set(name, inflateRawSync(zip.subarray(start, start + packed)))
    at = start + packed
  }
  return entries
}

const browserCall = (operation: string, args: Record<string, unknown> = {}): ToolCallScript => ({
  name: 'browser',
  arguments: { operation, arguments: args },
})

describe('browser automation through the browser MCP server', { skip: browserMissing }, () => {
  let mcp: BrowserMcpServer
  let site: { url: string; server: Server }
  let secure: { port: number; server: Server }
  let certDir: string
  /** Every UI stream chunk of every turn, for the canary check. */
  const chunks: unknown[] = []
  let stack: TestStack
  let url: string
  let api: ReturnType<typeof typedClient>['api']

  before(async () => {
    // The socket's path is known before the server listens: the host connects on first use.
    const socketDir = await mkdtemp(join(tmpdir(), 'popagent-browser-mcp-'))
    certDir = await mkdtemp(join(tmpdir(), 'popagent-browser-cert-'))
    ;[mcp, site, secure, stack] = await Promise.all([
      startBrowserMcpServer({ dir: socketDir, ignoreHttpsErrors: true, recordings: true }),
      startSite(),
      startHttpsSite(certDir),
      startTestStack({
        models: [{ id: 'remote/a' }],
        hostEnv: {
          POPAGENT_BROWSER_SOCKET: join(socketDir, 'sock', 'mcp.sock'),
          POPAGENT_BROWSER_OUTPUT_DIR: join(socketDir, 'out'),
          POPAGENT_DATA_DIR: join(socketDir, 'data'),
          POPAGENT_BROWSER_ALLOW_LOOPBACK: 'on',
          POPAGENT_SECRET_KEY: randomBytes(32).toString('base64'),
        },
      }),
    ])
    url = await stack.listen()
    await markRoles(stack, ['orchistrator'])
    api = typedClient(stack.edge()).api
    await okJson(await api.settings.browser.$patch({ json: { enabled: true } }), 200)
    await supervisorAccess('read-only')
  })
  after(async () => {
    await stack?.stop()
    await mcp?.dispose()
    site?.server.close()
    secure?.server.close()
    if (certDir) await rm(certDir, { recursive: true, force: true })
  })

  async function supervisorAccess(access: 'none' | 'read-only' | 'interactive') {
    const tools = ['workspace-read', 'browser']
    await okJson(
      await api.agents[':id'].$patch({
        param: { id: 'orchistrator' },
        json: { browserAccess: access, tools },
      }),
      200,
    )
  }

  /** A turn whose supervisor makes `calls` one after another, then answers. */
  async function turn(
    sessionId: string,
    calls: (ToolCallScript | ((last: string) => ToolCallScript))[],
  ) {
    const seen = stack.gateway.requests.length
    // Tool results of the session's earlier turns come along in its history: count from here.
    let base: number | undefined
    stack.gateway.respondWith((r): Reply | undefined => {
      if (roleOf(r) !== 'orchistrator') return undefined
      base ??= toolResultsOf(r).length
      const results = toolResultsOf(r)
      const next = calls[results.length - base]
      const last = JSON.stringify(results.at(-1)?.content ?? '')
      return next
        ? { toolCalls: [typeof next === 'function' ? next(last) : next] }
        : { text: 'Done.' }
    })
    chunks.push(
      ...(await readUiStream(await postChat(url, { sessionId, text: 'Look at the page.' }))),
    )
    const requests = stack.gateway.requests
      .slice(seen)
      .filter((r) => r.path === '/v1/chat/completions' && roleOf(r) === 'orchistrator')
    const last: RecordedRequest = requests.at(-1)!
    const results = toolResultsOf(last).slice(toolResultsOf(requests[0]!).length)
    return { offered: offeredTools(requests[0]!), results, last }
  }

  const text = (message: { content?: unknown }) => JSON.stringify(message.content)

  test('with the browser setting off the tool is absent; on, it is offered (read every run)', async () => {
    const session = await createSession(stack.edge())
    await okJson(await api.settings.browser.$patch({ json: { enabled: false } }), 200)
    const off = await turn(session, [])
    assert.ok(!off.offered.includes('browser'), `${off.offered}`)
    await okJson(await api.settings.browser.$patch({ json: { enabled: true } }), 200)
    const on = await turn(session, [])
    assert.ok(on.offered.includes('browser'), `${on.offered}`)
  })

  test('a read-only role reads a page, its screenshot reaches the model as an image, and its click is refused', async () => {
    const session = await createSession(stack.edge())
    const { results, last } = await turn(session, [
      browserCall('browser_navigate', { url: site.url }),
      browserCall('browser_take_screenshot', { type: 'png' }),
      browserCall('browser_click', { target: 'button' }),
      browserCall('browser_get_config'),
    ])
    assert.match(text(results[0]!), /Loopback site|127\.0\.0\.1/)
    // The screenshot's tool message carries an image part, not base64 inside text.
    const shot = results[1]!.content as { type: string; image_url?: { url: string } }[]
    assert.ok(Array.isArray(shot), `the screenshot result is ${text(results[1]!).slice(0, 200)}`)
    const image = shot.find((p) => p.type === 'image_url')
    assert.match(image?.image_url?.url ?? '', /^data:image\/png;base64,iVBOR/)
    assert.match(text(results[2]!), /BROWSER_ROLE_DENIED/)
    // Not in the server's catalog: the operation enum refuses it before anything runs.
    assert.doesNotMatch(text(results[3]!), /"ok":true/)
    assert.ok(messagesOf(last).length > 0)
    const sessions = await okJson(await api.browser.sessions.$get(), 200)
    const mine = sessions.sessions.find((s) => s.chatSessionId === session)
    assert.equal(mine?.callCount, 2, 'the refused click never reached the session')
  })

  test('an interactive role clicks; a takeover refuses its next click until the owner hands back; archiving closes the browser', async () => {
    await supervisorAccess('interactive')
    try {
      const session = await createSession(stack.edge())
      const first = await turn(session, [
        browserCall('browser_navigate', { url: site.url }),
        browserCall('browser_click', { target: 'button' }),
        browserCall('browser_evaluate', { function: '() => document.cookie' }),
      ])
      assert.doesNotMatch(text(first.results[1]!), /refused/)
      assert.match(text(first.results[2]!), /BROWSER_OPT_IN_REQUIRED/)
      const listed = await okJson(await api.browser.sessions.$get(), 200)
      const browserSession = listed.sessions.find(
        (s) => s.chatSessionId === session && !s.closedAt,
      )!
      assert.ok(browserSession, 'the chat session has an open browser session')
      const id = browserSession.id
      const taken = await okJson(
        await api.browser.sessions[':id'].takeover.$post({ param: { id } }),
        200,
      )
      assert.equal(taken.controller, 'human')
      const during = await turn(session, [
        browserCall('browser_click', { target: 'button' }),
        browserCall('browser_snapshot'),
      ])
      assert.match(text(during.results[0]!), /BROWSER_TAKEN_OVER/)
      // Reads go on while the owner drives: the page still says the first click happened.
      assert.match(text(during.results[1]!), /Clicked 1/)
      await okJson(await api.browser.sessions[':id'].handback.$post({ param: { id } }), 200)
      const back = await turn(session, [
        browserCall('browser_click', { target: 'button' }),
        browserCall('browser_snapshot'),
      ])
      assert.match(text(back.results[1]!), /Clicked 2/)
      await okJson(
        await api.sessions[':id'].$patch({ param: { id: session }, json: { archived: true } }),
        200,
      )
      const closed = await okJson(await api.browser.sessions.$get(), 200)
      const row = closed.sessions.find((s) => s.id === id)!
      assert.ok(row.closedAt, 'archiving the chat session closed its browser session')
      assert.match(row.closeReason ?? '', /archived/)
    } finally {
      await supervisorAccess('read-only')
    }
  })

  /** The chat session's open browser session's id. */
  async function browserSessionOf(chatSessionId: string) {
    const listed = await okJson(await api.browser.sessions.$get(), 200)
    const found = listed.sessions.find((s) => s.chatSessionId === chatSessionId && !s.closedAt)
    assert.ok(found, 'the chat session has an open browser session')
    return found.id
  }

  test('a recording of a browser session lands under the data directory, is listed, downloaded byte for byte and deleted', async () => {
    const session = await createSession(stack.edge())
    await turn(session, [browserCall('browser_tabs', { action: 'list' })])
    const id = await browserSessionOf(session)
    const recordings = api.browser.sessions[':id']
    const started = await okJson(await recordings.recording.$post({ param: { id } }), 201)
    assert.equal(started.state, 'recording')
    const again = await recordings.recording.$post({ param: { id } })
    assert.equal(again.status, 409, 'one recording at a time per session')
    await turn(session, [
      browserCall('browser_navigate', { url: site.url }),
      browserCall('browser_snapshot'),
    ])
    const stopped = await okJson(await recordings.recording.stop.$post({ param: { id } }), 200)
    assert.equal(stopped.state, 'ready', stopped.error ?? '')
    assert.match(stopped.stopReason ?? '', /owner/)
    const dir = join(stack.host.resources.env.POPAGENT_DATA_DIR, 'browser-recordings')
    const file = join(dir, `${stopped.id}.zip`)
    assert.equal((await stat(dir)).mode & 0o777, 0o700)
    assert.equal((await stat(file)).mode & 0o777, 0o600)
    const onDisk = await readFile(file)
    assert.equal(stopped.bytes, onDisk.length)
    // A trace the viewer reads: the action log names the page the session opened.
    const entries = unzip(onDisk)
    const trace = [...entries].find(([name]) => name.endsWith('.trace'))
    assert.ok(trace, `entries: ${[...entries.keys()]}`)
    assert.ok(trace[1].toString('utf8').includes(site.url), 'the trace shows the navigation')
    const listed = await okJson(await recordings.recordings.$get({ param: { id } }), 200)
    assert.deepEqual(
      listed.recordings.map((r) => [r.id, r.state]),
      [[stopped.id, 'ready']],
    )
    const download = await api.browser.recordings[':id'].file.$get({ param: { id: stopped.id } })
    assert.equal(download.status, 200)
    assert.match(download.headers.get('content-disposition') ?? '', /^attachment; filename=/)
    assert.ok(Buffer.from(await download.arrayBuffer()).equals(onDisk), 'the exact bytes')
    await okJson(await api.browser.recordings[':id'].$delete({ param: { id: stopped.id } }), 200)
    await assert.rejects(stat(file), /ENOENT/)
    const after = await okJson(await recordings.recordings.$get({ param: { id } }), 200)
    assert.deepEqual(after.recordings, [])
  })

  test('useBrowserSecret fills only on the bound origin, refuses a cross-origin frame and another origin, and the value is nowhere', async () => {
    const value = `browser-canary-${randomBytes(12).toString('base64url')}`
    const origin = `https://127.0.0.1:${secure.port}`
    const created = await okJson(
      await api.secrets.$post({ json: { name: 'SITE_PASSWORD', value } }),
      201,
    )
    await okJson(
      await api.secrets[':id'].bindings.$put({
        param: { id: created.id },
        json: { origins: [origin] },
      }),
      200,
    )
    await supervisorAccess('interactive')
    try {
      const session = await createSession(stack.edge())
      const fill = (target: string) =>
        browserCall('useBrowserSecret', { secretName: 'SITE_PASSWORD', target })
      // The owner records the session; the fill stops the recording first (a trace keeps the DOM).
      await turn(session, [browserCall('browser_tabs', { action: 'list' })])
      const browserSession = await browserSessionOf(session)
      const recording = api.browser.sessions[':id'].recording
      await okJson(await recording.$post({ param: { id: browserSession } }), 201)
      const bound = await turn(session, [
        browserCall('browser_navigate', { url: `${origin}/login` }),
        fill('#pw'),
        browserCall('browser_snapshot'),
      ])
      assert.match(text(bound.results[1]!), /\\"ok\\":true/)
      assert.match(text(bound.results[1]!), new RegExp(origin.replace(/[.]/g, '\\.')))
      assert.match(text(bound.results[2]!), new RegExp(`typed ${value.length}`))
      const kept = await okJson(
        await api.browser.sessions[':id'].recordings.$get({ param: { id: browserSession } }),
        200,
      )
      assert.equal(kept.recordings[0]?.state, 'ready', JSON.stringify(kept))
      assert.match(kept.recordings[0]?.stopReason ?? '', /before a vault secret was typed/)
      const refused = await recording.$post({ param: { id: browserSession } })
      assert.equal((refused as Response).status, 409)
      assert.match(JSON.stringify(await (refused as Response).json()), /BROWSER_RECORDING_REFUSED/)
      const zip = await readFile(
        join(
          stack.host.resources.env.POPAGENT_DATA_DIR,
          'browser-recordings',
          `${kept.recordings[0]!.id}.zip`,
        ),
      )
      const traceText = [...unzip(zip).values()].map((b) => b.toString('utf8')).join('\n')
      assert.ok(traceText.includes('/login'), 'the recording holds the page before the fill')
      const framed = await turn(session, [
        browserCall('browser_navigate', { url: `${origin}/framed` }),
        browserCall('browser_snapshot'),
        (last) => fill(/textbox[^[]*\[ref=(f\d+e\d+)\]/.exec(last)?.[1] ?? 'no-frame-ref'),
      ])
      assert.match(text(framed.results[2]!), /BROWSER_SECRET_ORIGIN_MISMATCH/)
      assert.match(text(framed.results[2]!), /localhost/)
      const elsewhere = await turn(session, [
        browserCall('browser_navigate', { url: `https://localhost:${secure.port}/login` }),
        fill('#pw'),
        browserCall('browser_snapshot'),
      ])
      assert.match(text(elsewhere.results[1]!), /BROWSER_SECRET_ORIGIN_MISMATCH/)
      assert.match(text(elsewhere.results[2]!), /typed 0/)
      // Nowhere: what reached the model, the streams, the host's log lines, any table.
      const places = {
        gateway: JSON.stringify(stack.gateway.requests.map((r) => r.body)),
        stream: JSON.stringify(chunks),
        logs: JSON.stringify(stack.logs),
        application: await tableText(stack.database.url),
        observability: await tableText(stack.host.resources.env.OBSERVABILITY_DATABASE_URL!),
        recording: traceText,
      }
      for (const [where, found] of Object.entries(places)) {
        assert.deepEqual(leaksIn(found, [value]), [], `the secret is in the ${where}`)
      }
      assert.ok(places.gateway.includes('SITE_PASSWORD'), 'the model saw the name')
    } finally {
      await supervisorAccess('read-only')
    }
  })

  test('browser health separates socket, MCP server and browser', async () => {
    const health = await okJson(await api.browser.health.$get(), 200)
    assert.equal(health.socket.ok, true)
    assert.equal(health.mcp.ok, true)
    assert.ok((health.mcp.tools ?? 0) >= 20, `${health.mcp.tools} tools`)
    assert.equal(health.browser.ok, true)
    const screencast = await api.browser.sessions[':id'].screencast.$get({
      param: { id: 'brs_01JD0000000000000000000000' },
    })
    assert.equal(screencast.status, 501)
    assert.match(JSON.stringify(await screencast.json()), /browser_screencast/)
  })

  test('with the server stopped mid-session the tool answers a clear error at once; when it returns the next call works', async () => {
    const session = await createSession(stack.edge())
    await turn(session, [browserCall('browser_tabs', { action: 'list' })])
    await mcp.stop()
    const started = performance.now()
    const down = await turn(session, [browserCall('browser_tabs', { action: 'list' })])
    assert.match(text(down.results[0]!), /BROWSER_(CONNECTION_LOST|UNAVAILABLE|SOCKET_REFUSED)/)
    assert.ok(performance.now() - started < 5_000, 'the failure is immediate, not a timeout')
    const health = await okJson(await api.browser.health.$get(), 200)
    assert.equal(health.socket.ok, false)
    assert.match(health.socket.reason ?? '', /does not exist/)
    assert.equal(health.mcp.ok, false)
    assert.equal(health.browser.ok, false)
    const id = await browserSessionOf(session).catch(() => 'brs_01JD0000000000000000000000')
    const record = () => api.browser.sessions[':id'].recording.$post({ param: { id } })
    const unreachable = await record()
    assert.equal(unreachable.status, 501)
    assert.match(JSON.stringify(await unreachable.json()), /no browser server is connected/)
    // Back without recordings: a server lacking the tracing operations is named as such.
    await mcp.restart({ recordings: false })
    // The host reconnects by itself (backoff from 250 ms); no restart of popagent.
    const deadline = Date.now() + 10_000
    let back = await turn(session, [browserCall('browser_tabs', { action: 'list' })])
    while (!/### Result/.test(text(back.results[0] ?? {})) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250))
      back = await turn(session, [browserCall('browser_tabs', { action: 'list' })])
    }
    assert.match(text(back.results[0]!), /### Result/)
    const lacking = await api.browser.sessions[':id'].recording.$post({
      param: { id: await browserSessionOf(session) },
    })
    assert.equal(lacking.status, 501)
    assert.match(
      JSON.stringify(await lacking.json()),
      /lacks browser_start_tracing, browser_stop_tracing/,
    )
  })
})

describe('the browser connection', { skip: browserMissing }, () => {
  const quiet = { warn() {}, info() {} }

  test('a socket with mode 0644 is refused before connecting', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'popagent-browser-socket-'))
    try {
      await mkdir(join(dir, 's'), { mode: 0o700 })
      const path = join(dir, 's', 'mcp.sock')
      const server = createNetServer()
      await new Promise<void>((done) => server.listen(path, done))
      await chmod(path, 0o644)
      const check = await checkBrowserSocket(path)
      assert.deepEqual(check, { ok: false, reason: `${path} has mode 0644; it must be 0600` })
      const connection = createBrowserServer({
        socketPath: path,
        openLink: socketLinkOpener({ socketPath: path }),
        log: quiet,
      })
      const health = await connection.health()
      assert.equal(health.socket.ok, false)
      assert.equal(health.mcp.ok, false)
      assert.match(health.mcp.reason ?? '', /mode 0644/)
      await connection.close()
      server.close()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  test('a Chromium that cannot start leaves the MCP server up and the browser down in health', async () => {
    const broken = await startBrowserMcpServer({ executablePath: '/nonexistent/chromium' })
    const connection = createBrowserServer({
      socketPath: broken.socketPath,
      openLink: socketLinkOpener({ socketPath: broken.socketPath }),
      log: quiet,
    })
    try {
      const health = await connection.health()
      assert.equal(health.socket.ok, true)
      assert.equal(health.mcp.ok, true)
      assert.ok((health.mcp.tools ?? 0) > 0)
      assert.equal(health.browser.ok, false)
      assert.ok(health.browser.reason, 'the browser part says why')
    } finally {
      await connection.close()
      await broken.dispose()
    }
  })
})
