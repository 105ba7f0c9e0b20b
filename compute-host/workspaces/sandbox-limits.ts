import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'

/**
 * What one sandboxed command may use, so that one command cannot take the host down. Each is a
 * per-process rlimit set inside the sandbox by util-linux `prlimit` (soft and hard alike, but
 * for CPU time; raising a hard limit needs CAP_SYS_RESOURCE, which the sandbox lacks), except
 * the size of `/tmp`, which is bubblewrap's tmpfs option. The figures let `npm test` and `tsc`
 * in a real repository run (measured: TypeScript 7 type-checking popagent itself peaks at
 * 1.8 GB).
 */
export type SandboxLimits = {
  /**
   * RLIMIT_NPROC: processes and threads of the sandbox's user, counted inside the sandbox's own
   * user namespace (kernels 5.14 and later), so other sandboxes and popagent do not count. The
   * kernel exempts uid 0 from this limit in every namespace, so it bounds nothing when popagent
   * runs as root (measured on 6.18: ten background sleeps started under a limit of five).
   */
  processes: number
  /** RLIMIT_FSIZE: the largest file a process may write; a longer write gets SIGXFSZ. */
  fileBytes: number
  /**
   * RLIMIT_DATA: private writable memory of one process (heap, writable mappings). Not
   * RLIMIT_AS: V8 reserves 10 GiB of address space for every WebAssembly memory, so under an
   * address-space limit of 8 GiB `new WebAssembly.Memory()` fails (Node 22, measured), which
   * would break PGlite, es-module-lexer and everything that loads them. Reservations are not
   * writable, so RLIMIT_DATA counts only what is used: Node runs under 256 MiB of it.
   */
  dataBytes: number
  /**
   * RLIMIT_CPU: CPU seconds of one process, all its threads together. Set to the most a process
   * could use within the command's time limit on every core of this machine, so it never ends
   * legitimate parallel work (a type-check on four threads) before the time limit would; it is
   * the bound that still holds if the time limit's kill did not.
   */
  cpuSeconds: number
  /** The private `/tmp` is a tmpfs, held in the host's memory; this is its size. */
  tmpBytes: number
}

const GiB = 1024 ** 3

/** The limits of a sandbox whose commands run at most `timeLimitMs`. */
export function sandboxLimits(
  timeLimitMs: number,
  overrides: Partial<SandboxLimits> = {},
): SandboxLimits {
  return {
    // Threads count: a test runner with a worker per core and about a dozen threads in each
    // is some 800 on a 64-core machine.
    processes: 2048,
    fileBytes: 4 * GiB,
    dataBytes: 8 * GiB,
    cpuSeconds: Math.ceil(timeLimitMs / 1000) * availableParallelism() + 10,
    tmpBytes: 2 * GiB,
    ...overrides,
  }
}

/** `prlimit` with `limits`, ending in `--`: what runs the sandboxed argv inside bubblewrap. */
export function prlimitArgv(limits: SandboxLimits): string[] {
  return [
    prlimitPath(),
    `--nproc=${limits.processes}`,
    `--fsize=${limits.fileBytes}`,
    `--data=${limits.dataBytes}`,
    // SIGXCPU at the limit, SIGKILL five seconds later for a process that ignores it.
    `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 5}`,
    // A core dump is a file in the repository that nobody asked for.
    '--core=0',
    '--',
  ]
}

let prlimit: string | undefined

/** util-linux's prlimit, under /usr or /bin, which the sandbox sees at the same path. */
function prlimitPath(): string {
  prlimit ??= ['/usr/bin/prlimit', '/bin/prlimit'].find((path) => existsSync(path))
  if (!prlimit) {
    throw new Error(
      "util-linux's prlimit is missing, and sandboxed commands do not run without their resource limits; install it (apt install util-linux)",
    )
  }
  return prlimit
}
