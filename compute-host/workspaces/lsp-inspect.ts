import { createTool } from '@mastra/core/tools'
import { createWorkspaceTools, Workspace, WORKSPACE_TOOLS } from '@mastra/core/workspace'
import { realpath, stat } from 'node:fs/promises'
import { isAbsolute, relative, resolve, sep } from 'node:path'
import { z } from 'zod'
import { keptJsonSchema } from '../tools/kept-json-schema.ts'
import { ContainedFilesystem, PathEscapesRepository } from './contained-filesystem.ts'
import { within } from './containment.ts'
import { LanguageServerSandbox } from './language-server-sandbox.ts'
import { ownTypeScriptServer } from './typescript-server.ts'

const OUTSIDE = '(outside the repository)'
const MASTRA_NAMES = Object.values(WORKSPACE_TOOLS).flatMap((group) => Object.values(group))
const MASTRA_LSP = WORKSPACE_TOOLS.LSP.LSP_INSPECT

// Mastra's TypeScript server definition with our command in place of its lookup.
const TYPESCRIPT = {
  id: 'typescript',
  name: 'TypeScript language server (popagent)',
  languageIds: ['typescript', 'typescriptreact', 'javascript', 'javascriptreact'],
  extensions: ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'],
  markers: ['tsconfig.json', 'jsconfig.json', 'package.json'],
}
// Mastra's other built-in servers, each resolved from the repository or PATH. A server added in a
// later Mastra release is still refused by LanguageServerSandbox, which starts one command only.
const OTHER_SERVERS = ['eslint', 'python', 'go', 'rust']

type Inspect = (input: unknown, context: unknown) => Promise<InspectResult>

type InspectResult = {
  hover?: { value: string; kind: string }
  diagnostics?: { severity: string; message: string; source: string | null }[]
  definition?: { location: string; preview: string | null }[]
  implementation?: string[]
  error?: string
}

// Built once for every run's tool, so its JSON Schema is converted once (kept-json-schema.ts).
const LSP_INSPECT_INPUT = keptJsonSchema(
  z.object({
    path: z.string().min(1).describe('File path relative to the repository root'),
    line: z.number().int().positive().describe('Line number (1-indexed)'),
    match: z
      .string()
      .describe('The line content with <<< at the cursor, e.g. "const x = <<<foo()"'),
  }),
)

/**
 * The `lsp-inspect` tool for one run's repository, shared by every agent of the run that holds
 * it (one language server per run, started on first use).
 *
 * Mastra's `lspInspectTool` does the protocol work, but it reads whatever absolute path it is
 * given and returns definition locations and source previews anywhere on the host. So the tool
 * here is ours: the path must be a repository-relative file that resolves inside the repository
 * after links; locations come back repository-relative, and a location outside the repository
 * (a TypeScript lib file, a package outside) is named as such with no preview.
 *
 * The repository is hostile input, and a language server executes what it finds there if it is
 * allowed to look (Mastra resolves servers from the repository's `node_modules` first). So:
 * - the only server is popagent's own TypeScript (typescript-server.ts), declared as a custom
 *   server that replaces Mastra's lookup, and every other built-in server is disabled;
 * - the process manager starts nothing but that exact command;
 * - it runs inside bubblewrap with popagent's one profile (sandbox-args.ts): the repository
 *   read-only at its own absolute path, so protocol locations still line up, plus the server's
 *   own directory; no network, no capabilities, and only SANDBOX_ENV in its environment.
 * Where the sandbox self-test failed, the tool is not offered (agents/factory.ts).
 *
 * It uses a workspace of its own, separate from the agent's, so the implementer keeps its shell
 * and gets this tool as well.
 */
export function createLspInspect(root: string) {
  let host: Workspace | undefined
  let inspect: Promise<Inspect> | undefined
  // Mastra exports its LSP tool only through createWorkspaceTools, built here with every other
  // workspace tool off.
  const mastraInspect = () =>
    (inspect ??= (async () => {
      const tools: Record<string, { enabled: boolean }> = {}
      for (const name of MASTRA_NAMES) tools[name] = { enabled: name === MASTRA_LSP }
      const server = ownTypeScriptServer()
      host = new Workspace({
        id: 'lsp-host',
        name: 'language server host',
        filesystem: new ContainedFilesystem({ root, readOnly: true }),
        sandbox: new LanguageServerSandbox(root, server),
        lsp: {
          root,
          servers: { typescript: { ...TYPESCRIPT, command: server.command } },
          disableServers: OTHER_SERVERS,
        },
        tools,
      })
      if (!host.lsp) throw new Error('the language server could not be set up on this host')
      const built = await createWorkspaceTools(host)
      const found = built[MASTRA_LSP] as { execute?: Inspect } | undefined
      if (!found?.execute) throw new Error(`@mastra/core no longer provides ${MASTRA_LSP}`)
      const execute = found.execute
      const workspace = host
      return (input, context) =>
        execute(input, { ...(context as object), workspace }) as Promise<InspectResult>
    })())

  const tool = createTool({
    id: 'lsp-inspect',
    description:
      'Inspect TypeScript or JavaScript code through the language server: hover type, diagnostics ' +
      'on the line, definition and implementation locations. Give a repository-relative file ' +
      'path, a 1-indexed line number, and the exact line content with <<< marking the cursor ' +
      '(exactly one marker).',
    inputSchema: LSP_INSPECT_INPUT,
    execute: async (input, context) => {
      const absolute = await containedFile(root, input.path)
      const run = await mastraInspect()
      return relocate(await run({ ...input, path: absolute }, context), root)
    },
  })

  return {
    tool,
    /** Stops the language server, when one was started. */
    async dispose() {
      await host?.destroy()
    },
  }
}

async function containedFile(root: string, given: string): Promise<string> {
  const refuse = (why: string): never => {
    throw new PathEscapesRepository(
      { path: given },
      { message: `${why}: ${JSON.stringify(given)}` },
    )
  }
  if (given.includes('\u0000')) refuse('a path with a NUL byte')
  if (isAbsolute(given)) refuse('give the path relative to the repository')
  const lexical = resolve(root, given)
  if (!within(root, lexical)) refuse('a path outside the repository')
  const real = await realpath(lexical).catch(() => refuse('no such file in the repository'))
  if (!within(root, real)) refuse('a link that leads outside the repository')
  if (!(await stat(real)).isFile()) refuse('not a file')
  return real
}

/** Mastra writes `path:Lx:Cy`, with the process's working directory shortened to `$cwd`. */
function relocate(result: InspectResult, root: string): InspectResult {
  const place = (location: string) => {
    const match = /^(.*):L(\d+):C(\d+)$/.exec(location)
    if (!match) return { location: OUTSIDE, inside: false }
    const path = match[1]!.startsWith('$cwd') ? process.cwd() + match[1]!.slice(4) : match[1]!
    if (!isAbsolute(path) || !within(root, path)) return { location: OUTSIDE, inside: false }
    const rel = relative(root, path).split(sep).join('/')
    return { location: `${rel}:L${match[2]}:C${match[3]}`, inside: true }
  }
  return {
    ...result,
    ...(result.definition && {
      definition: result.definition.map((d) => {
        const at = place(d.location)
        return { location: at.location, preview: at.inside ? d.preview : null }
      }),
    }),
    ...(result.implementation && {
      implementation: result.implementation.map((l) => place(l).location),
    }),
  }
}
