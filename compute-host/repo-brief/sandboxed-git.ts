import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname } from 'node:path'
import { promisify } from 'node:util'
import { sandboxArgs } from '../workspaces/sandbox-args.ts'

const run = promisify(execFile)
const TIMEOUT_MS = 10_000

/**
 * Runs a fixed git command on an agent-writable repository without trusting it. Git obeys the
 * repository's own `.git/config` and `.gitattributes` (fsmonitor hooks, clean filters …), which an
 * agent can write, so git runs inside bubblewrap with popagent's one profile (sandbox-args.ts) and
 * the repository read-only: no network, no capabilities, nothing writable but a throwaway /tmp,
 * and a time bound. Hooks and fsmonitor are switched off on the command line as well.
 * `GIT_CEILING_DIRECTORIES` stops git from climbing into an enclosing repository.
 *
 * Returns undefined when bubblewrap is unavailable: the caller then works without git, rather
 * than running it unconfined.
 */
export async function sandboxedGit(
  root: string,
  args: string[],
  signal?: AbortSignal,
): Promise<string | undefined> {
  if (!existsSync('/usr/bin/bwrap') && !existsSync('/bin/bwrap')) return undefined
  const { stdout } = await run(
    'bwrap',
    [
      ...sandboxArgs({ root, access: 'read-only' }),
      '--chdir',
      root,
      '--clearenv',
      '--setenv',
      'PATH',
      '/usr/bin:/bin',
      '--setenv',
      'HOME',
      '/tmp',
      '--setenv',
      'GIT_CEILING_DIRECTORIES',
      dirname(root),
      '--setenv',
      'GIT_OPTIONAL_LOCKS',
      '0',
      'git',
      '-c',
      'core.quotepath=off',
      '-c',
      'core.fsmonitor=false',
      '-c',
      'core.hooksPath=/dev/null',
      ...args,
    ],
    { maxBuffer: 64 * 1024 * 1024, timeout: TIMEOUT_MS, ...(signal && { signal }) },
  )
  return stdout
}
