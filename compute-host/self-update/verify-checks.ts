import { refuseCommand } from '../../runtime/self-update/command-policy.ts'
import { BoundedSandbox } from '../workspaces/bounded-sandbox.ts'
import { SANDBOX_ENV } from '../workspaces/agent-workspace.ts'

export type CheckResult = { id: string; exitCode: number | null; passed: boolean; tail: string }

const TAIL_CHARS = 64 * 1024
const quote = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`

/**
 * Runs the repository's configured checks in the clone, each in the bubblewrap sandbox with the
 * network unshared and only `SANDBOX_ENV` (no model key, no host variable), after the command
 * policy has refused any remote, publish or deploy step. Output keeps its last 64 KiB, redacted.
 * Without a working sandbox nothing runs: the phase fails and says why.
 */
export async function runChecks(options: {
  workTree: string
  commands: readonly (readonly string[])[]
  sandbox: { available: true } | { available: false; reason: string }
  limitMs: number
  redact: (text: string) => string
}): Promise<CheckResult[]> {
  if (!options.sandbox.available) {
    throw new Error(
      `verify cannot run the checks: the sandbox is unavailable (${options.sandbox.reason})`,
    )
  }
  if (options.commands.length === 0) {
    throw new Error(
      'verify has no checks configured for this repository; nothing unverified is committed',
    )
  }
  for (const argv of options.commands) refuseCommand(argv)
  const sandbox = new BoundedSandbox({
    root: options.workTree,
    env: SANDBOX_ENV,
    limitMs: options.limitMs,
  })
  const results: CheckResult[] = []
  for (const argv of options.commands) {
    const result = await sandbox.executeCommand!(argv.map(quote).join(' '), [])
    const output = options.redact(`${result.stdout}${result.stderr}`)
    results.push({
      id: argv.join(' '),
      exitCode: result.exitCode ?? null,
      passed: result.exitCode === 0,
      tail: output.slice(-TAIL_CHARS),
    })
  }
  return results
}
