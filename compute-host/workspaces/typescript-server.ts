import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

export type TypeScriptServer = { command: string; directory: string }

/**
 * The language server popagent runs: the native `tsc` binary of popagent's own TypeScript 7
 * install, started as `tsc --lsp --stdio`. Resolved from this file, never from a workspace:
 * Mastra's default lookup tries the repository's `node_modules` first (`.bin/*`,
 * `typescript/package.json`), which lets a repository choose what runs. The binary is a static
 * executable in `@typescript/typescript-<platform>-<arch>/lib`, next to the lib `.d.ts` files it
 * reads; that one directory is all the sandbox needs to see of popagent's install. TypeScript 7's
 * server loads no tsserver plugins.
 */
export function ownTypeScriptServer(): TypeScriptServer {
  // Resolved once per process: every run that inspects code would otherwise repeat it.
  return (resolved ??= resolveServer())
}

let resolved: TypeScriptServer | undefined

function resolveServer(): TypeScriptServer {
  const fromHere = createRequire(import.meta.url)
  const typescript = fromHere.resolve('typescript/package.json')
  const platformPackage = `@typescript/typescript-${process.platform}-${process.arch}/package.json`
  const manifest = createRequire(typescript).resolve(platformPackage)
  const directory = join(dirname(manifest), 'lib')
  const binary = join(directory, process.platform === 'win32' ? 'tsc.exe' : 'tsc')
  if (!existsSync(binary)) throw new Error(`popagent's TypeScript server is missing: ${binary}`)
  return { command: `${shellQuoted(binary)} --lsp --stdio`, directory }
}

/** Mastra starts servers through `sh -c`, so the path is quoted for the shell. */
function shellQuoted(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`
}
