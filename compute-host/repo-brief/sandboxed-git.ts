import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)
const TIMEOUT_MS = 10_000

/**
 * Runs a fixed git command on an agent-writable repository without trusting it. Git obeys the
 * repository's own `.git/config` and `.gitattributes` (fsmonitor hooks, clean filters …), which an
 * agent can write, so git runs inside bubblewrap: read-only view of /usr and the repository only,
 * every namespace unshared (no network), nothing writable but a throwaway /tmp, and a time bound.
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
  const bind = ['--ro-bind', '/usr', '/usr']
  for (const link of ['bin', 'lib', 'lib64', 'sbin']) {
    if (existsSync(`/${link}`)) bind.push('--symlink', `usr/${link}`, `/${link}`)
  }
  const { stdout } = await run(
    'bwrap',
    [
      ...bind,
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      // Before the repository's bind: a later mount would hide a repository under /tmp.
      '--tmpfs',
      '/tmp',
      '--ro-bind',
      root,
      root,
      '--unshare-all',
      '--die-with-parent',
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
      '--chdir',
      root,
      'git',
      '-c',
      'core.quotepath=off',
      '-c',
      'core.fsmonitor=false',
      ...args,
    ],
    { maxBuffer: 64 * 1024 * 1024, timeout: TIMEOUT_MS, ...(signal && { signal }) },
  )
  return stdout
}
