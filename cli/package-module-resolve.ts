import { readFileSync, realpathSync, statSync } from 'node:fs'
import nodeModule, { type ResolveHookContext, type ResolveFnOutput } from 'node:module'
import { dirname, join, sep } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

/**
 * Resolves a package's relative imports between its own ES modules (`./x.js` from a file under
 * `node_modules` whose package says `"type": "module"`) without Node's package.json lookup.
 *
 * Why: to learn a `.js` module's format, Node 22 fetches the whole parsed package.json of its
 * package from C++ as strings and copies it with an object spread, which runs the lazy getter that
 * JSON-parses the `exports` map. That happens once per module, not once per package. drizzle-orm
 * has a 178 KB package.json and popagent loads 447 of its modules: about 0.8 s of a 2.4 s import
 * of `popagent start`'s module graph, and @mastra/core's 459 modules about 0.1 s more.
 *
 * What it does is what Node's own resolution does for such a specifier: the URL relative to the
 * importing module, the real path of the file (so a module reached through a symbolic link has
 * one identity), and the format from the nearest package.json, read once per directory and
 * stopping at a `node_modules` folder, as Node's scope lookup does. Anything else (a bare name,
 * a missing file or a directory, a `%`, `?` or `#`, a package that is not `"type": "module"`,
 * a module outside `node_modules`) goes to Node's resolution unchanged, errors included.
 */
export function registerPackageModuleResolve(): boolean {
  // `module.registerHooks` came with Node 22.15; popagent runs on 22.13 too, only slower to load.
  // (A named import of it would stop the CLI from loading at all on such a Node.)
  if (typeof nodeModule.registerHooks !== 'function') return false
  nodeModule.registerHooks({
    resolve: (specifier, context, nextResolve) =>
      resolvePackageModule(specifier, context.parentURL) ?? nextResolve(specifier, context),
  })
  return true
}

/** The resolution of a relative import between a package's ES modules, or undefined for Node's. */
export function resolvePackageModule(
  specifier: string,
  parentURL: ResolveHookContext['parentURL'],
): ResolveFnOutput | undefined {
  if (!parentURL?.startsWith('file:') || !parentURL.includes('/node_modules/')) return undefined
  if (!(specifier.startsWith('./') || specifier.startsWith('../'))) return undefined
  if (!specifier.endsWith('.js') || /[%?#]/.test(specifier)) return undefined
  let path: string
  try {
    path = realpathSync.native(fileURLToPath(new URL(specifier, parentURL)))
  } catch {
    return undefined // missing, or not a path: Node's resolution says so in its own words
  }
  // A directory named `x.js` is Node's to refuse (ERR_UNSUPPORTED_DIR_IMPORT).
  if (!statSync(path, { throwIfNoEntry: false })?.isFile()) return undefined
  if (scopeType(dirname(path)) !== 'module') return undefined
  return { url: pathToFileURL(path).href, format: 'module', shortCircuit: true }
}

// The `type` of the package.json that governs each directory: 'module', or null for anything
// Node decides another way (no type, commonjs, no package.json, one that does not parse).
const scopeTypes = new Map<string, 'module' | null>()

function scopeType(dir: string): 'module' | null {
  const known = scopeTypes.get(dir)
  if (known !== undefined) return known
  let type: 'module' | null
  if (dir.endsWith(`${sep}node_modules`) || dirname(dir) === dir) {
    type = null // Node's scope lookup stops at a node_modules folder and at the root
  } else {
    const text = readPackageJson(dir)
    type = text === undefined ? scopeType(dirname(dir)) : text === null ? null : typeField(text)
  }
  scopeTypes.set(dir, type)
  return type
}

/** The directory's package.json; undefined when it has none, null when it cannot be read. */
function readPackageJson(dir: string): string | undefined | null {
  try {
    return readFileSync(join(dir, 'package.json'), 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return code === 'ENOENT' || code === 'ENOTDIR' ? undefined : null
  }
}

function typeField(text: string): 'module' | null {
  try {
    return (JSON.parse(text) as { type?: unknown }).type === 'module' ? 'module' : null
  } catch {
    return null // Node reports a broken package.json itself
  }
}
