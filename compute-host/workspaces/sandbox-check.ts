import { lstat, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BoundedSandbox } from './bounded-sandbox.ts'
import { sandboxCommand } from './sandbox-args.ts'
import { sandboxLimits } from './sandbox-limits.ts'
import { errorMessage } from '../../runtime/error-message.ts'

export type SandboxStatus = { available: true } | { available: false; reason: string }

const SETUID_PROBE = 'setuid-probe'

const FIX =
  'install bubblewrap 0.8 or later (apt install bubblewrap) and allow user namespaces (sysctl kernel.unprivileged_userns_clone=1, or run popagent where user namespaces are permitted)'

// One command, six findings, each on its own tagged line so the parse cannot be confused by
// what another line printed. `mount`, `touch` and `chmod` must fail; only a failure prints
// nothing. A limit's line is parsed here (`findings`), not in the sandbox's shell.
const PROBE = [
  `echo "net:$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\\n' ',')"`,
  `echo "caps:$(grep '^CapEff:' /proc/self/status | cut -f2)"`,
  'mount -o remount,bind,rw /usr 2>/dev/null && echo remounted:/usr',
  'touch .git/popagent-probe 2>/dev/null && echo wrote:.git',
  `touch ${SETUID_PROBE} && chmod 6755 ${SETUID_PROBE} 2>/dev/null && echo setuid:chmod`,
  `echo "nproc:$(grep '^Max processes ' /proc/self/limits)"`,
  `echo "fsize:$(grep '^Max file size ' /proc/self/limits)"`,
  'true',
].join('; ')

/**
 * The start-up self-test of the sandbox, run through the very class the shell tool uses. A
 * command must run, and from inside it: no network interface but `lo`, no effective capability
 * (CapEff 0, which matters when popagent runs as root), a read-only bind that cannot be remounted
 * writable, a `.git` that cannot be written, a seccomp filter that refuses a set-user-ID mode,
 * and the resource limits in force. When any of these fails, the shell and the language server
 * are not offered and report this reason and the fix: nothing from a workspace ever runs outside
 * the sandbox or in a weaker one.
 */
export async function checkSandbox(): Promise<SandboxStatus> {
  const dir = await mkdtemp(join(tmpdir(), 'popagent-sandbox-check-'))
  const limitMs = 10_000
  try {
    // Built once before the probe, so a missing prlimit or an unsupported CPU is reported with
    // its own fix rather than as a command that could not run.
    try {
      sandboxCommand({ root: dir, access: 'read-only', limits: sandboxLimits(limitMs), argv: [] })
    } catch (error) {
      return { available: false, reason: errorMessage(error).slice(0, 400) }
    }
    await mkdir(join(dir, '.git'))
    const sandbox = new BoundedSandbox({ root: dir, env: { LANG: 'C.UTF-8' }, limitMs })
    const result = await sandbox.executeCommand!('sh', ['-c', PROBE])
    if (result.exitCode !== 0) {
      return unavailable(
        `bubblewrap could not run a command (exit ${result.exitCode}: ${result.stderr.trim().slice(0, 300)})`,
      )
    }
    const found = findings(result.stdout)
    if (found.net !== 'lo') {
      return unavailable(
        `the sandbox's network namespace has interfaces ${found.net || '(none listed)'}; refusing to run commands with network access`,
      )
    }
    if (!/^0+$/.test(found.caps ?? '')) {
      return unavailable(
        `a sandboxed command kept capabilities (CapEff ${found.caps ?? 'unknown'}); refusing to run commands that could remount the sandbox`,
      )
    }
    if (found.remounted) return unavailable('a read-only bind could be remounted writable')
    if (found.wrote || (await readdir(join(dir, '.git'))).length > 0) {
      return unavailable("the repository's .git was writable inside the sandbox")
    }
    const probe = await lstat(join(dir, SETUID_PROBE)).catch(() => undefined)
    if (found.setuid || !probe || (probe.mode & 0o6000) !== 0) {
      return unavailable(
        'the seccomp filter did not refuse a set-user-ID mode (a sandboxed command could leave a set-user-ID file on the host)',
        'run popagent on a Linux kernel with seccomp filters (CONFIG_SECCOMP_FILTER) and bubblewrap 0.8 or later',
      )
    }
    const limits = sandboxLimits(limitMs)
    if (found.nproc !== String(limits.processes) || found.fsize !== String(limits.fileBytes)) {
      return unavailable(
        `the resource limits were not in force (processes ${found.nproc ?? 'unknown'}, file size ${found.fsize ?? 'unknown'})`,
        "util-linux's prlimit sets them inside the sandbox (apt install util-linux)",
      )
    }
    return { available: true }
  } catch (error) {
    return unavailable(errorMessage(error))
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

function unavailable(why: string, fix = FIX): SandboxStatus {
  return { available: false, reason: `${why.slice(0, 400)}; ${fix}` }
}

function findings(stdout: string) {
  const lines = new Map<string, string>()
  for (const line of stdout.split('\n')) {
    const colon = line.indexOf(':')
    if (colon > 0) lines.set(line.slice(0, colon), line.slice(colon + 1).trim())
  }
  return {
    net: lines.get('net')?.replace(/,$/, ''),
    caps: lines.get('caps'),
    remounted: lines.has('remounted'),
    wrote: lines.has('wrote'),
    setuid: lines.has('setuid'),
    nproc: softLimit(lines.get('nproc')),
    fsize: softLimit(lines.get('fsize')),
  }
}

/** "Max processes   2048   2048   processes": the soft value, third field from the end. */
function softLimit(line: string | undefined): string | undefined {
  return line?.trim().split(/\s+/).at(-3)
}
