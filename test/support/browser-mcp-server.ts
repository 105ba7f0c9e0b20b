/**
 * The reference browser MCP server (scripts/browser-mcp-host.ts: Playwright's MCP server on a
 * protected Unix socket) as its own process, the way `popagent browser-server` runs it, for the
 * browser tests. Each instance gets a fresh 0700 directory for its socket and output.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const HOST_SCRIPT = fileURLToPath(new URL('../../scripts/browser-mcp-host.ts', import.meta.url))

export type BrowserMcpServer = {
  socketPath: string
  dir: string
  output: () => string
  /** Starts the server again on the same socket (after `stop`), recordings on or off. */
  restart(changes?: { recordings?: boolean }): Promise<void>
  /** SIGTERM and wait for exit (the server closes its browsers and removes its socket). */
  stop(): Promise<void>
  /** `stop`, then remove the directory. */
  dispose(): Promise<void>
}

export async function startBrowserMcpServer(
  options: {
    executablePath?: string
    /** Its directory, when the caller made it. */ dir?: string
    /** Accept the test site's self-signed certificate. */
    ignoreHttpsErrors?: boolean
    /** Offer trace recordings (`--recordings`, as `popagent browser-server --recordings`). */
    recordings?: boolean
  } = {},
): Promise<BrowserMcpServer> {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'popagent-browser-mcp-')))
  const socketPath = join(dir, 'sock', 'mcp.sock')
  let child: ChildProcess | undefined
  let output = ''
  let recordings = options.recordings === true
  async function start(changes: { recordings?: boolean } = {}) {
    recordings = changes.recordings ?? recordings
    const proc = spawn(
      process.execPath,
      [
        HOST_SCRIPT,
        '--socket',
        socketPath,
        '--executable-path',
        options.executablePath ?? '/usr/bin/chromium',
        '--output-dir',
        join(dir, 'out'),
        ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
        ...(options.ignoreHttpsErrors ? ['--ignore-https-errors'] : []),
        ...(recordings ? ['--recordings'] : []),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    child = proc
    await new Promise<void>((ready, fail) => {
      const onData = (data: Buffer) => {
        output += data
        if (output.includes('listening on')) ready()
      }
      proc.stdout!.on('data', onData)
      proc.stderr!.on('data', (data: Buffer) => (output += data))
      proc.once('exit', (code) => fail(new Error(`browser MCP server exited (${code}): ${output}`)))
    })
  }
  async function stop() {
    const proc = child
    child = undefined
    if (!proc || proc.exitCode !== null) return
    const exited = new Promise((done) => proc.once('exit', done))
    proc.kill('SIGTERM')
    await exited
  }
  await start()
  return {
    socketPath,
    dir,
    output: () => output,
    restart: start,
    stop,
    async dispose() {
      await stop()
      await rm(dir, { recursive: true, force: true })
    },
  }
}
