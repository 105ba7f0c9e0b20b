import { join } from 'node:path'
import { seccompFilterFile } from './seccomp-filter-file.ts'
import { prlimitArgv, type SandboxLimits } from './sandbox-limits.ts'

/**
 * The one way every sandboxed process is started: the agent's shell (bounded-sandbox.ts), the
 * language server (language-server-sandbox.ts) and command hooks (command-hook.ts) all spawn
 * exactly what this returns, so their profiles cannot drift apart. The parts, in order:
 *
 * 1. `/bin/sh -c 'f=$1; shift; exec "$@" 3<"$f"'`: opens the seccomp program
 *    (seccomp-filter.ts) as fd 3 and execs bubblewrap, so the spawned process (and the group
 *    a timeout kills) is bubblewrap's, as before. The sandboxed argv is a positional parameter,
 *    never parsed by this shell. Mastra spawns with three pipes and no way to pass a fourth
 *    descriptor; bubblewrap closes it after reading.
 * 2. `bwrap` with the profile below, `--seccomp 3`.
 * 3. `prlimit` with the limits (sandbox-limits.ts), inside the sandbox: RLIMIT_NPROC counts per
 *    user namespace, and set outside it would count every process popagent's user has.
 * 4. `argv`.
 *
 * The environment is the spawn's own (bubblewrap passes it on): it is how a hook's secrets
 * reach it without appearing in any process's command line.
 *
 * The profile, and why:
 *
 * - `--unshare-all --unshare-user`: new user, pid, ipc, uts, cgroup and network namespaces. The
 *   network namespace has only `lo`; the user namespace is required, not tried, so running
 *   popagent as root (a container's default) still leaves the sandbox without host privileges.
 * - `--cap-drop ALL` and `--disable-userns`: no capability inside, and no nested user namespace
 *   to regain one in. Without them, uid 0 could remount a read-only bind writable (measured:
 *   Mastra's default profile as root keeps CapEff 000001fffeffffff and the remount succeeds).
 *   `--disable-userns` needs bubblewrap 0.8 or later; an older one fails the start-up self-test,
 *   and the shell is then not offered.
 * - `--new-session`: the sandbox cannot push keystrokes into the owner's terminal (TIOCSTI).
 * - System directories read-only, a private `/tmp`, and the repository at its own absolute
 *   path, so paths mean the same inside and out (the language server's locations rely on it).
 * - The repository's `.git` read-only on top of a writable repository: configuration written
 *   there (`core.fsmonitor`, hooks, filters) would run on the owner's next `git status`, outside
 *   any sandbox. Only the root's `.git` is covered (docs/security.md), and a workspace without
 *   one gets no shell (shell-needs-git.ts).
 * - The seccomp filter: no set-user-ID or set-group-ID file can be made in the repository, which
 *   is the host's filesystem.
 *
 * Without `chdir`, bubblewrap keeps the caller's working directory, which is inside the
 * repository. Throws when the filter or `prlimit` is not available: the caller then runs nothing.
 */
export function sandboxCommand(options: {
  /** The repository, bound at its own path. */
  root: string
  access: 'read-only' | 'read-write'
  /** Directories of popagent's own install the process needs (read-only), e.g. a server binary. */
  tools?: readonly string[]
  chdir?: string
  limits: SandboxLimits
  argv: readonly string[]
  /**
   * Keep the host's network (`--share-net`, with /etc/resolv.conf): only for an MCP server
   * whose owner allowed it (docs/mcp-servers.md). Every other sandbox has only `lo`.
   */
  network?: boolean
}): { command: string; args: string[] } {
  const { limits } = options
  const filter = seccompFilterFile()
  const args = [
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    '--new-session',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    // Before the repository's bind: a later mount would hide a repository under /tmp.
    '--size',
    String(limits.tmpBytes),
    '--tmpfs',
    '/tmp',
  ]
  if (options.network)
    args.push('--share-net', '--ro-bind-try', '/etc/resolv.conf', '/etc/resolv.conf')
  for (const path of SYSTEM_PATHS) args.push('--ro-bind-try', path, path)
  for (const path of options.tools ?? []) args.push('--ro-bind', path, path)
  args.push(options.access === 'read-write' ? '--bind' : '--ro-bind', options.root, options.root)
  const git = join(options.root, '.git')
  args.push('--ro-bind-try', git, git)
  if (options.chdir) args.push('--chdir', options.chdir)
  args.push('--seccomp', '3', '--')
  args.push(...prlimitArgv(limits), ...options.argv)
  return {
    command: '/bin/sh',
    args: ['-c', 'f=$1; shift; exec "$@" 3<"$f"', 'popagent-sandbox', filter, 'bwrap', ...args],
  }
}

// What ordinary commands need to run; nothing under /home, /root, /run, /var or /opt (popagent
// itself, with its data directory and every other workspace, is often installed under /opt).
const SYSTEM_PATHS = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/etc/alternatives',
  '/etc/ssl',
  '/etc/ca-certificates',
  '/etc/passwd',
  '/etc/group',
  '/etc/nsswitch.conf',
  '/etc/ld.so.cache',
  '/etc/localtime',
  '/etc/hosts',
]
