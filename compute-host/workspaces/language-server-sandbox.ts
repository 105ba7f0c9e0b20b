import { LocalSandbox } from '@mastra/core/workspace'
import { SANDBOX_ENV } from './agent-workspace.ts'
import { sandboxCommand } from './sandbox-args.ts'
import { sandboxLimits } from './sandbox-limits.ts'
import type { TypeScriptServer } from './typescript-server.ts'

/**
 * The process manager of `lsp-inspect`: bubblewrap with the repository read-only and popagent's
 * TypeScript server directory visible, and a spawn that starts exactly one command, the server's.
 * Mastra's LSP manager picks commands from its own list of servers; refusing everything else
 * here keeps a server that a later Mastra release adds (and resolves from the repository) from
 * starting, even inside the sandbox.
 */
export class LanguageServerSandbox extends LocalSandbox {
  readonly #root: string
  readonly #server: TypeScriptServer

  constructor(root: string, server: TypeScriptServer) {
    super({
      workingDirectory: root,
      isolation: 'bwrap',
      env: SANDBOX_ENV,
      // Not used: `wrapCommandForIsolation` below builds the server's argv.
      nativeSandbox: { allowNetwork: false },
    })
    this.#root = root
    this.#server = server
    // Mastra sets the process manager up per instance, so its spawn is wrapped, not overridden.
    const spawn = this.processes.spawn.bind(this.processes)
    this.processes.spawn = (command, options) => {
      if (command !== server.command) {
        return Promise.reject(
          new Error(
            `popagent starts only its own TypeScript server, not: ${command.slice(0, 200)}`,
          ),
        )
      }
      return spawn(command, options)
    }
  }

  /** The server's argv: popagent's one sandbox (sandbox-args.ts), the repository read-only. */
  override wrapCommandForIsolation(command: string): { command: string; args: string[] } {
    return sandboxCommand({
      root: this.#root,
      access: 'read-only',
      tools: [this.#server.directory],
      limits: SERVER_LIMITS,
      argv: ['sh', '-c', command],
    })
  }
}

// The server lives as long as its run, not one command: its CPU bound is an hour of CPU time,
// far above what answering a run's inspections takes.
const SERVER_LIMITS = sandboxLimits(3_600_000, { cpuSeconds: 3_600 })
