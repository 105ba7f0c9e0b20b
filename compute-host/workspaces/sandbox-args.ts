import { join } from 'node:path'

/**
 * The one bubblewrap profile every sandboxed process gets: the agent's shell and the language
 * server. What is in it, and why:
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
 *
 * No `--chdir`: bubblewrap keeps the caller's working directory, which is inside the repository.
 */
export function sandboxArgs(options: {
  /** The repository, bound at its own path. */
  root: string
  access: 'read-only' | 'read-write'
  /** Directories of popagent's own install the process needs (read-only), e.g. a server binary. */
  tools?: readonly string[]
}): string[] {
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
    '--tmpfs',
    '/tmp',
  ]
  for (const path of SYSTEM_PATHS) args.push('--ro-bind-try', path, path)
  for (const path of options.tools ?? []) args.push('--ro-bind', path, path)
  args.push(options.access === 'read-write' ? '--bind' : '--ro-bind', options.root, options.root)
  const git = join(options.root, '.git')
  args.push('--ro-bind-try', git, git)
  return args
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
