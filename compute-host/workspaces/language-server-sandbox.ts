import { LocalSandbox } from '@mastra/core/workspace'
import { SANDBOX_ENV } from './agent-workspace.ts'
import { sandboxArgs } from './sandbox-args.ts'
import type { TypeScriptServer } from './typescript-server.ts'

/**
 * The process manager of `lsp-inspect`: bubblewrap with the repository read-only and popagent's
 * TypeScript server directory visible, and a spawn that starts exactly one command, the server's.
 * Mastra's LSP manager picks commands from its own list of servers; refusing everything else
 * here keeps a server that a later Mastra release adds (and resolves from the repository) from
 * starting, even inside the sandbox.
 */
export class LanguageServerSandbox extends LocalSandbox {
  constructor(root: string, server: TypeScriptServer) {
    super({
      workingDirectory: root,
      isolation: 'bwrap',
      env: SANDBOX_ENV,
      nativeSandbox: {
        allowNetwork: false,
        bwrapArgs: sandboxArgs({ root, access: 'read-only', tools: [server.directory] }),
      },
    })
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
}
