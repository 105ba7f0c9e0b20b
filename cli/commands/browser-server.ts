import { spawn } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { delimiter, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { defaultBrowserSocket } from '../../compute-host/browser/socket-path.ts'
import { DEFAULT_DATA_DIR } from '../../compute-host/env.ts'

const HOST_SCRIPT = fileURLToPath(new URL('../../scripts/browser-mcp-host.ts', import.meta.url))

/** `command -v <name>`: the first executable of that name on PATH. */
function onPath(name: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name)
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {}
  }
  return undefined
}

/**
 * `popagent browser-server`: runs the reference browser MCP server (Playwright's, driving Debian's
 * Chromium) as its own process on a protected Unix socket, where popagent's host connects. It is
 * the owner's to start and stop; the host never launches it (docs/browser.md).
 *
 *   popagent browser-server [--socket <path>] [--output-max-size <bytes>] [--caps a,b]
 *     [--recordings]
 *
 * The socket defaults to POPAGENT_DATA_DIR/browser/mcp.sock (what the host looks for unless
 * POPAGENT_BROWSER_SOCKET says otherwise); screenshots and downloads go to
 * POPAGENT_DATA_DIR/browser-out. Chromium's own sandbox is turned off only when running as root,
 * where it cannot start at all ("Chromium sandboxing failed!"). `--recordings` offers Playwright
 * traces (its `devtools` capability) so the owner can record a browser session; the output
 * directory is kept 0700 (what a page or a trace holds is the owner's).
 */
export async function browserServer(env: Record<string, string | undefined>, args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      socket: { type: 'string' },
      'output-max-size': { type: 'string', default: String(256 * 1024 * 1024) },
      caps: { type: 'string' },
      recordings: { type: 'boolean', default: false },
    },
  })
  const dataDir = resolve(env.POPAGENT_DATA_DIR ?? DEFAULT_DATA_DIR)
  const socket = resolve(
    values.socket ?? env.POPAGENT_BROWSER_SOCKET ?? defaultBrowserSocket(dataDir),
  )
  const chromium = onPath('chromium', env.PATH)
  if (!chromium) {
    throw new Error(
      "configuration: no chromium on PATH; install Debian's (apt-get install chromium)",
    )
  }
  const argv = [
    HOST_SCRIPT,
    '--socket',
    socket,
    '--executable-path',
    chromium,
    '--output-dir',
    join(dataDir, 'browser-out'),
    '--output-max-size',
    values['output-max-size'],
    ...(values.caps ? ['--caps', values.caps] : []),
    ...(values.recordings ? ['--recordings'] : []),
    ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
  ]
  const child = spawn(process.execPath, argv, { stdio: 'inherit', env: { ...process.env } })
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal)
  process.on('SIGINT', forward('SIGINT'))
  process.on('SIGTERM', forward('SIGTERM'))
  const code = await new Promise<number>((done) => child.on('exit', (c) => done(c ?? 1)))
  process.exitCode = code
}
