import { LocalSandbox } from '@mastra/core/workspace'

type ExecuteArgs = Parameters<NonNullable<LocalSandbox['executeCommand']>>

/**
 * The shell sandbox: bubblewrap with the network namespace unshared, rooted at the repository,
 * and every command under a time bound. Mastra documents a default timeout for LocalSandbox but
 * does not apply it (docs/notes/mastra-workspace.md), and the model chooses the per-call timeout,
 * so both foreground and background commands get `min(requested, limitMs)` here. Abort and
 * timeout kill the whole process group (Mastra spawns it detached and signals the group).
 */
export class BoundedSandbox extends LocalSandbox {
  readonly #limitMs: number

  constructor(options: { root: string; env: Record<string, string>; limitMs: number }) {
    super({
      workingDirectory: options.root,
      isolation: 'bwrap',
      env: options.env,
      nativeSandbox: { allowNetwork: false },
    })
    this.#limitMs = options.limitMs
    // Mastra sets both entry points up per instance (not on the prototype), so they are wrapped
    // here rather than overridden.
    const spawn = this.processes.spawn.bind(this.processes)
    this.processes.spawn = (command, spawnOptions) =>
      spawn(command, { ...spawnOptions, timeout: this.#bound(spawnOptions?.timeout) })
    const execute = this.executeCommand!.bind(this)
    this.executeCommand = (...[command, args, options]: ExecuteArgs) =>
      execute(command, args, { ...options, timeout: this.#bound(options?.timeout) })
  }

  #bound(requested: number | undefined): number {
    return requested && requested > 0 ? Math.min(requested, this.#limitMs) : this.#limitMs
  }
}
