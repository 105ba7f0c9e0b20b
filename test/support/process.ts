import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

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
