/**
 * Every way a command could leave a set-user-ID or set-group-ID file (or a file capability) in
 * the repository, plus ordinary mode changes that must keep working. Each probe prints its exit
 * status; perl's raw `syscall` reaches calls no tool makes (mknod of a regular file, openat2,
 * x32, io_uring, setxattr) and exits with the errno. Relative paths: run in the repository.
 */
export type SetuidProbe = {
  name: string
  script: string
  /** `refused`: any non-zero status; `enosys`: status 38; `works`: status 0. */
  inside: 'refused' | 'enosys' | 'works'
}

// x86-64 and arm64 (generic) numbers of the raw calls.
const NR = {
  x64: { mknod: 'syscall(133, $p, 0104755, 0)', setxattr: 188, uring: 425 },
  arm64: { mknod: 'syscall(33, -100, $p, 0104755, 0)', setxattr: 5, uring: 425 },
}[process.arch === 'arm64' ? 'arm64' : 'x64']

// perl's syscall passes a string argument as a pointer, and only from a variable.
const perl = (code: string) => `perl -e '${code}'`

// vfs_cap_data revision 2 with the effective flag, permitting CAP_SETUID (bit 7): 20 bytes.
const CAPABILITY = 'pack("V5", 0x02000001, 0x80, 0, 0, 0)'

export const setuidProbes: SetuidProbe[] = [
  { name: 'cp-chmod', script: 'cp /bin/sh helper && chmod 6755 helper', inside: 'refused' },
  { name: 'chmod-symbolic', script: 'cp /bin/sh sym && chmod u+s,g+s sym', inside: 'refused' },
  { name: 'install', script: 'install -m 4755 /bin/sh installed', inside: 'refused' },
  { name: 'setgid-dir', script: 'mkdir shared && chmod g+s shared', inside: 'refused' },
  {
    name: 'open-creat',
    // O_WRONLY|O_CREAT with mode 04755: no chmod at all.
    script: perl('sysopen(my $f, "opened", 0101, 04755) or exit($!+0)'),
    inside: 'refused',
  },
  {
    name: 'node-open',
    // popagent's own Node, whose directory the shell sandbox sees.
    script: `'${process.execPath}' -e 'require("fs").openSync("node-opened", "w", 0o6755)'`,
    inside: 'refused',
  },
  {
    name: 'mknod',
    script: perl(`my $p = "made"; ${NR.mknod} == 0 or exit($!+0)`),
    inside: 'refused',
  },
  {
    name: 'openat2',
    script: perl(
      'my ($p, $how) = ("opened2", pack("QQQ", 0101, 04755, 0)); syscall(437, -100, $p, $how, 24) >= 0 or exit($!+0)',
    ),
    inside: 'enosys',
  },
  {
    name: 'io-uring',
    script: perl(`my $p = "\\0" x 120; syscall(${NR.uring}, 1, $p) >= 0 or exit($!+0)`),
    inside: 'enosys',
  },
  {
    name: 'setxattr-capability',
    script: `echo x > capped && ${perl(`my ($p, $n, $v) = ("capped", "security.capability", ${CAPABILITY}); syscall(${NR.setxattr}, $p, $n, $v, 20, 0) == 0 or exit($!+0)`)}`,
    inside: 'refused',
  },
  // Ordinary modes and opens are untouched: a plain chmod, a create with 0644, and an open
  // without O_CREAT whose (ignored) mode argument has the set-ID bits.
  { name: 'chmod-plain', script: 'echo hi > plain && chmod 755 plain', inside: 'works' },
  {
    name: 'open-plain',
    script: perl('sysopen(my $f, "plain2", 0101, 0644) or exit($!+0)'),
    inside: 'works',
  },
  {
    name: 'open-ignored-mode',
    script: perl('sysopen(my $f, "/etc/passwd", 0, 04755) or exit($!+0)'),
    inside: 'works',
  },
]

if (process.arch === 'x64') {
  setuidProbes.push({
    name: 'x32-chmod',
    script: `echo x > x32 && ${perl('my $p = "x32"; syscall(0x40000000 | 90, $p, 04755) == 0 or exit($!+0)')}`,
    inside: 'refused',
  })
}

/** One shell script that runs every probe and prints `name=status` per line. */
export function setuidProbeScript(): string {
  return setuidProbes.map((p) => `( ${p.script} ) >/dev/null 2>&1; echo "${p.name}=$?"`).join('\n')
}

/** The `name=status` lines of `setuidProbeScript`'s output. */
export function parseProbeStatuses(output: string): Record<string, number> {
  const found: Record<string, number> = {}
  for (const [, name, status] of output.matchAll(/([a-z0-9-]+)=(\d+)/g)) {
    found[name!] = Number(status)
  }
  return found
}

/** The probes whose status inside the sandbox is not what it must be. */
export function wrongStatuses(statuses: Record<string, number>): string[] {
  return setuidProbes
    .filter((p) => {
      const status = statuses[p.name]
      if (status === undefined || !Number.isInteger(status)) return true
      if (p.inside === 'works') return status !== 0
      if (p.inside === 'enosys') return status !== 38
      return status === 0
    })
    .map((p) => `${p.name}=${statuses[p.name] ?? 'missing'}`)
}
