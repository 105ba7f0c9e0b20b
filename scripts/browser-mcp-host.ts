/**
 * The reference browser MCP server on a protected Unix socket: Playwright's MCP server
 * (`@playwright/mcp`, driving Debian's Chromium) behind Streamable HTTP on `--socket`. Playwright's
 * own CLI serves only TCP (`--port`), which any local user could reach, so this wrapper builds one
 * `createConnection()` per MCP session (each with its own isolated browser context) and serves
 * them on a socket only our user can open: the directory 0700, the socket 0600 (made under umask
 * 077, so it is never reachable for a moment).
 *
 * It is a separate process, never run inside the compute host (`popagent browser-server` starts
 * it; docs/browser.md). Playwright's MCP server is "not a security boundary": the socket's
 * permissions are the boundary, and popagent's policy decides what an agent may call.
 *
 *   node scripts/browser-mcp-host.ts --socket <path> --executable-path <chromium>
 *     --output-dir <dir> [--output-max-size <bytes>] [--no-sandbox] [--caps a,b]
 *     [--recordings] [--ignore-https-errors]   (test sites with self-signed certificates only)
 *
 * Output: each MCP session writes under `<output-dir>/<Mcp-Session-Id>/` (its traces in
 * `traces/`), removed when the session ends, so one session's files never mix with another's;
 * popagent packs a session's trace from there (compute-host/browser/recordings.ts). The output
 * directory is made 0700 and refused when anyone else could enter it. `--recordings` adds
 * Playwright's `devtools` capability, which brings `browser_start_tracing`/`browser_stop_tracing`
 * (and video operations, which need Playwright's own ffmpeg build).
 *
 * Measured traps (design doc §2): without browserName chromium it wants Chrome; as root Chromium's
 * sandbox cannot start (so `--no-sandbox` is passed only then); without snapshot mode none the
 * results point at files on the server. Chromium starts lazily, so `tools/list` answers even
 * when it cannot run.
 */
import { randomUUID } from 'node:crypto'
import { chmodSync, lstatSync, mkdirSync, rmSync, unlinkSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { parseArgs } from 'node:util'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'

type PlaywrightMcp = {
  createConnection(config: Record<string, unknown>): Promise<{
    connect(transport: unknown): Promise<void>
    close(): Promise<void>
  }>
}

const { values } = parseArgs({
  options: {
    socket: { type: 'string' },
    'executable-path': { type: 'string' },
    'output-dir': { type: 'string' },
    'output-max-size': { type: 'string' },
    'no-sandbox': { type: 'boolean', default: false },
    // For a test site with a self-signed certificate only: the browser accepts any certificate.
    'ignore-https-errors': { type: 'boolean', default: false },
    caps: { type: 'string' },
    recordings: { type: 'boolean', default: false },
  },
})

function fail(message: string): never {
  console.error(`browser-mcp-host: ${message}`)
  process.exit(2)
}

const socketPath = values.socket ?? fail('--socket <path> is required')
const executablePath = values['executable-path'] ?? fail('--executable-path <chromium> is required')
const outputDir = values['output-dir'] ?? fail('--output-dir <dir> is required')
const outputMaxSize = values['output-max-size'] ? Number(values['output-max-size']) : undefined
if (outputMaxSize !== undefined && !(Number.isInteger(outputMaxSize) && outputMaxSize > 0)) {
  fail('--output-max-size must be a positive number of bytes')
}

const capabilities = new Set((values.caps ?? '').split(',').filter(Boolean))
if (values.recordings) capabilities.add('devtools')

const config = {
  browser: {
    browserName: 'chromium',
    isolated: true,
    launchOptions: {
      headless: true,
      executablePath,
      // Only when asked (as root Chromium cannot set up its sandbox at all).
      ...(values['no-sandbox'] && { chromiumSandbox: false }),
    },
    ...(values['ignore-https-errors'] && { contextOptions: { ignoreHTTPSErrors: true } }),
  },
  snapshot: { mode: 'none' },
  outputDir,
  ...(outputMaxSize && { outputMaxSize }),
  ...(capabilities.size > 0 && { capabilities: [...capabilities] }),
}

const { createConnection } = createRequire(import.meta.url)('@playwright/mcp') as PlaywrightMcp

// The socket's directory and the output directory: ours alone. A directory someone else can
// enter is refused, not fixed (what a page or a trace holds is the owner's).
function ownDirectory(directory: string) {
  mkdirSync(directory, { recursive: true, mode: 0o700 })
  const stat = lstatSync(directory)
  if (!stat.isDirectory() || stat.uid !== process.getuid!() || (stat.mode & 0o077) !== 0) {
    fail(`${directory} must be a directory owned by this user with mode 0700 (chmod 700 it)`)
  }
}
ownDirectory(dirname(socketPath))
ownDirectory(outputDir)
// A socket left by an earlier run is replaced; anything else at the path is refused.
try {
  const old = lstatSync(socketPath)
  if (!old.isSocket()) fail(`${socketPath} exists and is not a socket`)
  unlinkSync(socketPath)
} catch (error) {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
}

type Session = { transport: StreamableHTTPServerTransport; close(): Promise<void> }
const sessions = new Map<string, Session>()

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    // An MCP request is small (arguments of one browser operation); refuse anything huge.
    if (size > 4 * 1024 * 1024) throw new Error('request body over 4 MiB')
    chunks.push(chunk as Buffer)
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'))
}

function answer(res: ServerResponse, status: number, message: string) {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }))
}

async function handle(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://localhost')
  if (url.pathname !== '/mcp') return answer(res, 404, 'not found: the endpoint is /mcp')
  const id = req.headers['mcp-session-id']
  const known = typeof id === 'string' ? sessions.get(id) : undefined
  if (req.method !== 'POST') {
    if (!known) return answer(res, 404, 'unknown MCP session')
    return known.transport.handleRequest(req, res)
  }
  const body = await readJson(req)
  if (known) return known.transport.handleRequest(req, res, body)
  if (id !== undefined) return answer(res, 404, 'unknown MCP session')
  if (!isInitializeRequest(body)) return answer(res, 400, 'a new session starts with initialize')
  // A new MCP session: its own server, its own isolated browser context, its own output folder.
  const sessionId = randomUUID()
  const sessionOutput = join(outputDir, sessionId)
  const server = await createConnection({ ...config, outputDir: sessionOutput })
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => sessionId,
    onsessioninitialized: (sessionId) => {
      sessions.set(sessionId, { transport, close: () => server.close() })
    },
  })
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId)
    void server
      .close()
      .catch(() => {})
      .finally(() => rmSync(sessionOutput, { recursive: true, force: true }))
  }
  await server.connect(transport)
  await transport.handleRequest(req, res, body)
}

const http = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    if (!res.headersSent) answer(res, 500, error instanceof Error ? error.message : String(error))
    else res.destroy()
  })
})

const previousUmask = process.umask(0o077)
http.listen(socketPath, () => {
  process.umask(previousUmask)
  chmodSync(socketPath, 0o600)
  console.log(`browser-mcp-host: listening on ${socketPath}`)
})

async function shutdown() {
  http.close()
  await Promise.allSettled([...sessions.values()].map((s) => s.close()))
  try {
    unlinkSync(socketPath)
  } catch {}
  process.exit(0)
}
process.on('SIGINT', () => void shutdown())
process.on('SIGTERM', () => void shutdown())
