/**
 * A secret bound to a command hook never appears on any process's command line (security
 * issue, hole 3). It was passed as `bwrap --setenv NAME VALUE`, so `ps -eo args` and
 * /proc/PID/cmdline showed it to every local user for the hook's whole run. The hook sleeps
 * while every process's command line is read, and still answers with the variable's hash.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { test } from 'node:test'
import { promisify } from 'node:util'
import { runCommandHook } from '../compute-host/hooks/command-hook.ts'
import { bubblewrapMissing } from './support/bubblewrap.ts'

const run = promisify(execFile)

/** Every process's command line, NULs as spaces; a process gone meanwhile is skipped. */
async function commandLines(): Promise<string[]> {
  const lines: string[] = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const line = await readFile(`/proc/${entry}/cmdline`, 'latin1').catch(() => '')
    if (line) lines.push(line.replaceAll('\0', ' '))
  }
  return lines
}

test(
  "a hook's secret is in its environment and on no process's command line while it runs",
  { skip: bubblewrapMissing(), timeout: 30_000 },
  async () => {
    const canary = `hook-canary-${randomBytes(12).toString('hex')}`
    const marker = `hook-marker-${randomBytes(6).toString('hex')}`
    const hook = runCommandHook({
      // `marker` is the script's $0: it finds the hook's processes, and is no secret.
      command: ['sh', '-c', 'sleep 2; printf %s "$DEPLOY_TOKEN" | sha256sum | cut -c1-64', marker],
      stdin: '{}',
      timeoutMs: 20_000,
      env: { DEPLOY_TOKEN: canary },
    })
    let seen: string[] = []
    for (let tries = 0; tries < 150; tries++) {
      seen = await commandLines()
      if (seen.some((line) => line.includes(marker))) break
      await new Promise((r) => setTimeout(r, 10))
    }
    const hookProcesses = seen.filter((line) => line.includes(marker))
    assert.ok(hookProcesses.length > 0, 'the hook was never seen running')
    const { stdout: ps } = await run('ps', ['-eo', 'args'])
    const outcome = await hook

    assert.deepEqual(
      seen.filter((line) => line.includes(canary)),
      [],
    )
    assert.ok(ps.includes(marker), 'ps did not list the hook')
    assert.ok(!ps.includes(canary), 'ps -eo args showed the secret')
    assert.deepEqual(outcome, {
      kind: 'answer',
      output: `${createHash('sha256').update(canary).digest('hex')}\n`,
    })
  },
)
