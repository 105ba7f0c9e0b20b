/**
 * The shell sandbox cannot leave a set-user-ID or set-group-ID file (or a file capability) on
 * the host (security issue, hole 2). The repository is the host's filesystem, bind-mounted
 * writable; before the seccomp filter, `cp /bin/sh helper && chmod 6755 helper` in the shell
 * left `-rwsr-sr-x` owned by popagent's user. Every probe of test/support/setuid-probes.ts runs
 * through the shell's own class, then `find -perm /6000` on the host must find nothing. The
 * same probes run first outside the sandbox, where they must make such files: the probes are
 * proven able to fail this test.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { promisify } from 'node:util'
import { BoundedSandbox } from '../compute-host/workspaces/bounded-sandbox.ts'
import { bubblewrapMissing } from './support/bubblewrap.ts'
import { parseProbeStatuses, setuidProbeScript, wrongStatuses } from './support/setuid-probes.ts'

const run = promisify(execFile)
const skip =
  bubblewrapMissing() ||
  (!existsSync('/usr/bin/perl') && 'perl is needed for the raw-syscall probes (apt install perl)')

/** Paths below `root` with a set-ID bit, as the host's `find` sees them. */
async function setIdFiles(root: string): Promise<string[]> {
  const { stdout } = await run('find', [root, '-perm', '/6000'])
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((path) => path.slice(root.length + 1))
}

/** Whether `path` carries a security.capability attribute (getxattr; ENODATA when not). */
async function hasFileCapability(path: string): Promise<boolean> {
  const getxattr = process.arch === 'arm64' ? 8 : 191
  const { stdout } = await run('perl', [
    '-e',
    `my ($p, $n, $b) = ($ARGV[0], "security.capability", "\\0" x 64); print syscall(${getxattr}, $p, $n, $b, 64) >= 0 ? "present" : "absent"`,
    path,
  ])
  return stdout === 'present'
}

test(
  'no command in the shell sandbox leaves a set-user-ID, set-group-ID or capability file on the host',
  { skip, timeout: 60_000 },
  async () => {
    const base = await realpath(await mkdtemp(join(tmpdir(), 'popagent-setuid-')))
    try {
      // Control: outside any sandbox the same probes do make set-ID files.
      const outside = join(base, 'outside')
      await mkdir(outside)
      await writeFile(join(outside, 'probe.sh'), setuidProbeScript())
      await run('sh', ['probe.sh'], { cwd: outside })
      const madeOutside = await setIdFiles(outside)
      for (const name of ['helper', 'installed', 'shared', 'opened', 'node-opened', 'made']) {
        assert.ok(madeOutside.includes(name), `the control made no set-ID ${name}: ${madeOutside}`)
      }
      // Only root (CAP_SETFCAP) can set a file capability outside.
      if (process.getuid?.() === 0) assert.ok(await hasFileCapability(join(outside, 'capped')))

      const root = join(base, 'repo')
      await mkdir(join(root, '.git'), { recursive: true })
      await writeFile(join(root, 'probe.sh'), setuidProbeScript())
      const sandbox = new BoundedSandbox({ root, env: { LANG: 'C.UTF-8' }, limitMs: 30_000 })
      const result = await sandbox.executeCommand!('sh', ['probe.sh'])
      assert.equal(result.exitCode, 0, result.stderr)
      const statuses = parseProbeStatuses(result.stdout)
      assert.deepEqual(wrongStatuses(statuses), [], result.stdout)
      assert.deepEqual(await setIdFiles(root), [])
      assert.equal(await hasFileCapability(join(root, 'capped')), false)
    } finally {
      await rm(base, { recursive: true, force: true })
    }
  },
)
