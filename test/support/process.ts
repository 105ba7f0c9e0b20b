import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loginUrl } from '../../cli/login.ts'

const CLI = fileURLToPath(new URL('../../cli/popagent.ts', import.meta.url))

export type RunningCli = {
  child: ChildProcess
  url: string
  output: () => string
  /** SIGTERM, then resolve with the exit code. */
  stop: () => Promise<number | null>
}

/**
 * Runs a `popagent` verb in its own process with only the given environment (plus PATH/HOME), in
 * a fresh working directory: the defaults that are relative to it (`./data`, `./workspace` with
 * the default workspace cloned into it, `.env`) never land in the checkout or leak between tests.
 */
export function runCli(args: string[], env: Record<string, string>) {
  const cwd = mkdtempSync(join(tmpdir(), 'popagent-cli-cwd-'))
  process.once('exit', () => rmSync(cwd, { recursive: true, force: true }))
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (d) => (output += d))
  child.stderr!.on('data', (d) => (output += d))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, exited, output: () => output }
}

/** Starts a long-running verb and waits until it prints the URL it serves. */
export async function startCli(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<RunningCli> {
  const run = runCli(args, env)
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const match = run.output().match(/(?:running|listening) at (http:\/\/\S+)/)
    if (match) {
      return {
        child: run.child,
        url: match[1]!,
        output: run.output,
        stop: () => {
          run.child.kill('SIGTERM')
          return run.exited
        },
      }
    }
    if (run.child.exitCode !== null)
      throw new Error(`popagent ${args.join(' ')} exited early:\n${run.output()}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  run.child.kill('SIGKILL')
  throw new Error(`popagent ${args.join(' ')} did not start in ${timeoutMs} ms:\n${run.output()}`)
}

export type FreshPopagent = {
  cli: RunningCli
  dataDir: string
  /** The generated API key, read from the data directory. */
  key: string
  /** The sign-in link `popagent start` shows a terminal (a pipe gets the key file's path). */
  link: string
  /** Stops the process (its exit code) and removes its directories. */
  dispose(): Promise<number | null>
}

/**
 * `popagent start` as a new owner runs it: a fresh data directory, no POPAGENT_API_KEY (so a key
 * is generated and its file named), an unreachable gateway, and an empty `popagent`
 * directory as the default workspace so no clone is made.
 */
export async function startFreshPopagent(name: string): Promise<FreshPopagent> {
  const dataDir = await mkdtemp(join(tmpdir(), `popagent-${name}-`))
  const workspaceRoot = await mkdtemp(join(tmpdir(), `popagent-${name}-ws-`))
  await mkdir(join(workspaceRoot, 'popagent'))
  const cli = await startCli(['start'], {
    POPAGENT_DATA_DIR: dataDir,
    POPAGENT_WORKSPACE_ROOT: workspaceRoot,
    PORT: '0',
    NINEROUTER_URL: 'http://127.0.0.1:1/v1',
  })
  // Its stdout is a pipe, not a terminal: it names the key file and prints no link.
  for (let i = 0; i < 400 && !/the API key is in /.test(cli.output()); i++)
    await new Promise((r) => setTimeout(r, 25))
  if (!/the API key is in /.test(cli.output()))
    throw new Error(`popagent start did not say where its key is:\n${cli.output()}`)
  const key = (await readFile(join(dataDir, 'api-key'), 'utf8')).trim()
  return {
    cli,
    dataDir,
    key,
    link: loginUrl(cli.url, key),
    async dispose() {
      const code = await cli.stop()
      await rm(dataDir, { recursive: true, force: true })
      await rm(workspaceRoot, { recursive: true, force: true })
      return code
    },
  }
}
