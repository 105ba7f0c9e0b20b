import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { MAX_OUTPUT_BYTES } from '../../runtime/hooks/verdict.ts'
import { sandboxCommand } from '../workspaces/sandbox-args.ts'
import { sandboxLimits } from '../workspaces/sandbox-limits.ts'
import type { HookOutcome } from './hook-outcome.ts'
import { errorMessage } from '../../runtime/error-message.ts'

const KILL_GRACE_MS = 2_000

/**
 * Runs a command hook: its argv (never a shell string) inside bubblewrap with popagent's one
 * profile (sandbox-args.ts: no network, no capabilities), in an empty scratch directory, with an
 * environment of PATH, HOME and LANG plus only what `env` names (values bound to this hook in
 * the vault), never the host's. The event goes in on stdin; stdout is the answer, read up to
 * 64 KiB. At the timeout the process group gets SIGTERM, and SIGKILL two seconds later.
 *
 * The environment is the spawned process's own, which bubblewrap passes on, never `--setenv`
 * arguments: a command line is readable by every local user (`ps`, /proc/PID/cmdline), and a
 * secret there was visible for the hook's whole run. /proc/PID/environ is readable only by
 * popagent's own user.
 */
export async function runCommandHook(options: {
  command: readonly string[]
  stdin: string
  timeoutMs: number
  env?: Readonly<Record<string, string>>
}): Promise<HookOutcome> {
  const scratch = await mkdtemp(join(tmpdir(), 'popagent-hook-'))
  const env: Record<string, string> = {
    PATH: `/usr/local/bin:/usr/bin:/bin:${dirname(process.execPath)}`,
    HOME: scratch,
    LANG: 'C.UTF-8',
    ...options.env,
  }
  try {
    let sandboxed: { command: string; args: string[] }
    try {
      sandboxed = sandboxCommand({
        root: scratch,
        access: 'read-write',
        tools: [dirname(process.execPath)],
        chdir: scratch,
        limits: sandboxLimits(options.timeoutMs),
        argv: options.command,
      })
    } catch (error) {
      return {
        kind: 'failed',
        failure: 'spawn_error',
        reason: `the hook could not start: ${errorMessage(error)}`,
      }
    }
    return await new Promise<HookOutcome>((resolve) => {
      const child = spawn(sandboxed.command, sandboxed.args, {
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
        // The start's own shell sets PWD from this; inside, `--chdir` puts it in the same place.
        cwd: scratch,
        env,
      })
      let stdout = ''
      let stderr = ''
      let bytes = 0
      let timedOut = false
      let oversize = false
      const killGroup = (signal: NodeJS.Signals) => {
        try {
          if (child.pid) process.kill(-child.pid, signal)
        } catch {
          // Already gone.
        }
      }
      const stop = () => {
        killGroup('SIGTERM')
        setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS).unref()
      }
      const timer = setTimeout(() => {
        timedOut = true
        stop()
      }, options.timeoutMs)
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        bytes += Buffer.byteLength(chunk)
        if (bytes > MAX_OUTPUT_BYTES) {
          if (!oversize) stop()
          oversize = true
          return
        }
        stdout += chunk
      })
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        if (stderr.length < 4_096) stderr += chunk
      })
      child.stdin.on('error', () => {})
      child.stdin.end(options.stdin)
      child.on('error', (error) => {
        clearTimeout(timer)
        resolve({
          kind: 'failed',
          failure: 'spawn_error',
          reason: `the hook could not start: ${error.message}`,
        })
      })
      child.on('close', (code, signal) => {
        clearTimeout(timer)
        if (timedOut)
          return resolve({
            kind: 'failed',
            failure: 'timeout',
            reason: `the hook did not answer within ${options.timeoutMs} ms`,
          })
        if (oversize)
          return resolve({
            kind: 'failed',
            failure: 'oversize',
            reason: `the hook answered more than ${MAX_OUTPUT_BYTES} bytes`,
          })
        if (signal)
          return resolve({
            kind: 'failed',
            failure: 'signal',
            reason: `the hook was killed by ${signal}`,
            output: stdout,
          })
        // Exit 2 is the conventional "block" of other agents' hooks: a deny, its stderr the reason.
        if (code === 2)
          return resolve({
            kind: 'answer',
            output: JSON.stringify({
              decision: 'deny',
              reason: stderr.trim() || 'the hook exited with status 2',
            }),
          })
        // bubblewrap reports a child killed by signal N as exit status 128 + N.
        if (code !== null && code > 128 && code <= 128 + 64)
          return resolve({
            kind: 'failed',
            failure: 'signal',
            reason: `the hook was killed by signal ${code - 128}`,
            output: stdout,
          })
        if (code !== 0)
          return resolve({
            kind: 'failed',
            failure: 'nonzero_exit',
            reason: `the hook exited with status ${code}`,
            output: stdout + stderr,
          })
        resolve({ kind: 'answer', output: stdout })
      })
    })
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
}
