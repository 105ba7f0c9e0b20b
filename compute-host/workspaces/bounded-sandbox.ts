import { LocalSandbox } from '@mastra/core/workspace'
import { dirname } from 'node:path'
import { sandboxCommand } from './sandbox-args.ts'
import { sandboxLimits, type SandboxLimits } from './sandbox-limits.ts'

const SANDBOX_LIMITS =
  'Commands run in a sandbox with no network. The repository is writable except its .git ' +
  'directory, which is read-only: read history with git freely, but commits, branch changes ' +
  'and git configuration are made by popagent, not from this shell.'

type ExecuteArgs = Parameters<NonNullable<LocalSandbox['executeCommand']>>

/**
 * The shell sandbox: bubblewrap with popagent's one profile (sandbox-args.ts: no network, no
 * capabilities, `.git` read-only), rooted at the repository, and every command under a time
 * bound. The directory of the Node that runs popagent is visible read-only, so the agent can run
 * `node` and `npm` in the repository as it could before. Mastra documents a default timeout for LocalSandbox but
 * does not apply it (docs/notes/mastra-workspace.md), and the model chooses the per-call timeout,
 * so both foreground and background commands get `min(requested, limitMs)` here. Abort and
 * timeout kill the whole process group (Mastra spawns it detached and signals the group). Each
 * command also runs under the resource limits of sandbox-limits.ts and the seccomp filter.
 */
export class BoundedSandbox extends LocalSandbox {
  readonly #limitMs: number
  readonly #root: string
  readonly #limits: SandboxLimits

  constructor(options: {
    root: string
    env: Record<string, string>
    limitMs: number
    /** Tighter (or looser) resource limits than the defaults for `limitMs`. */
    limits?: Partial<SandboxLimits>
  }) {
    super({
      workingDirectory: options.root,
      // Constructed as 'none', then set to bubblewrap below: see `#isolate`.
      isolation: 'none',
      env: options.env,
      // Said up front, so a refused write is not a surprise the model tries to work around.
      instructions: ({ defaultInstructions }) => `${defaultInstructions}\n${SANDBOX_LIMITS}`,
      // Not used: `wrapCommandForIsolation` below builds every command's argv.
      nativeSandbox: { allowNetwork: false },
    })
    this.#isolate()
    this.#limitMs = options.limitMs
    this.#root = options.root
    this.#limits = sandboxLimits(options.limitMs, options.limits)
    // Mastra sets both entry points up per instance (not on the prototype), so they are wrapped
    // here rather than overridden.
    const spawn = this.processes.spawn.bind(this.processes)
    this.processes.spawn = (command, spawnOptions) =>
      spawn(command, { ...spawnOptions, timeout: this.#bound(spawnOptions?.timeout) })
    const execute = this.executeCommand!.bind(this)
    this.executeCommand = (...[command, args, options]: ExecuteArgs) =>
      execute(command, args, { ...options, timeout: this.#bound(options?.timeout) })
  }

  /**
   * Every command Mastra runs, foreground or background, is spawned as what this returns (1.71:
   * LocalProcessManager.spawn is its only caller): popagent's one sandbox argv, with `sh -c
   * <command>` inside as Mastra's own bubblewrap wrapper has it. The start-up self-test proves
   * the seccomp filter and the limits are in force through this class, so a Mastra release that
   * stops calling it disables the shell instead of running commands without them.
   */
  override wrapCommandForIsolation(command: string): { command: string; args: string[] } {
    return sandboxCommand({
      root: this.#root,
      access: 'read-write',
      tools: [dirname(process.execPath)],
      limits: this.#limits,
      argv: ['sh', '-c', command],
    })
  }

  /**
   * Mastra's constructor checks for bubblewrap by spawning `which bwrap` synchronously, on every
   * construction: one per agent with a shell per run, about 30 ms of blocked event loop per chat
   * turn on a busy two-core host. popagent checks bubblewrap once at start (sandbox-check.ts)
   * and only builds this class when that passed, so the sandbox is built without the check and
   * given its isolation here. Mastra reads `isolation` from this public field whenever it runs a
   * command (1.71); the sandbox-network fault test runs commands through this class and fails if
   * they ever run outside the namespace, so an upgrade that moves the field is caught there.
   */
  #isolate() {
    // Typed read-only, assigned by Mastra's own constructor the same way.
    if (!Reflect.set(this, 'isolation', 'bwrap') || this.isolation !== 'bwrap') {
      throw new Error('the shell sandbox could not be isolated')
    }
  }

  #bound(requested: number | undefined): number {
    return requested && requested > 0 ? Math.min(requested, this.#limitMs) : this.#limitMs
  }
}
