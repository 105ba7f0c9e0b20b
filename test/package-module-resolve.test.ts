/**
 * The CLI's resolve hook (cli/package-module-resolve.ts) answers relative imports between a
 * package's ES modules itself. Each answer it gives must be the one Node's own resolution gives,
 * and everything it is unsure of must go to Node. Node's answers come from a child process with
 * `import.meta.resolve(specifier, parent)` and no hook.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, test } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { resolvePackageModule } from '../cli/package-module-resolve.ts'

const HOOK = fileURLToPath(new URL('../cli/package-module-resolve.ts', import.meta.url))
const root = mkdtempSync(join(tmpdir(), 'popagent-module-resolve-'))
after(() => rmSync(root, { recursive: true, force: true }))

function put(path: string, text: string) {
  mkdirSync(dirname(join(root, path)), { recursive: true })
  writeFileSync(join(root, path), text)
}

// An ES module package with a CommonJS corner, a package without a type, and a linked folder.
put('node_modules/esm-pkg/package.json', JSON.stringify({ name: 'esm-pkg', type: 'module' }))
put(
  'node_modules/esm-pkg/lib/a.js',
  "import * as direct from './b.js'\nimport * as linked from './linked/b.js'\nexport const same = direct === linked\n",
)
put('node_modules/esm-pkg/lib/b.js', 'export const b = 1\n')
put('node_modules/esm-pkg/lib/deep/c.js', "export { b } from '../b.js'\n")
put('node_modules/esm-pkg/lib/100%.js', 'export const odd = 1\n')
mkdirSync(join(root, 'node_modules/esm-pkg/lib/folder.js'))
put('node_modules/esm-pkg/cjs/package.json', JSON.stringify({ type: 'commonjs' }))
put('node_modules/esm-pkg/cjs/c.js', 'exports.c = 1\n')
put('node_modules/plain-pkg/package.json', JSON.stringify({ name: 'plain-pkg' }))
put('node_modules/plain-pkg/x.js', 'export const x = 1\n')
put('node_modules/plain-pkg/y.js', "export { x } from './x.js'\n")
put('app/main.js', "export { b } from '../node_modules/esm-pkg/lib/b.js'\n")
symlinkSync(join(root, 'node_modules/esm-pkg/lib'), join(root, 'node_modules/esm-pkg/lib/linked'))

const url = (path: string) => pathToFileURL(join(root, path)).href

/** Node's own resolution of each [specifier, parent], from a process without the hook. */
function nodeResolves(cases: [string, string][]): (string | null)[] {
  const script =
    `const cases = ${JSON.stringify(cases)}\n` +
    'console.log(JSON.stringify(cases.map(([s, p]) => { try { return import.meta.resolve(s, p) } catch { return null } })))'
  const out = execFileSync(
    process.execPath,
    ['--experimental-import-meta-resolve', '--no-warnings', '--input-type=module', '-e', script],
    { env: { PATH: process.env.PATH ?? '' } },
  )
  return JSON.parse(out.toString()) as (string | null)[]
}

test('what the hook answers is what Node answers, and what it leaves goes to Node', () => {
  const a = url('node_modules/esm-pkg/lib/a.js')
  const cases: [string, string, 'hook' | 'node'][] = [
    ['./b.js', a, 'hook'],
    ['./deep/c.js', a, 'hook'],
    ['../b.js', url('node_modules/esm-pkg/lib/deep/c.js'), 'hook'],
    // Through the linked folder: the real path, as Node gives it.
    ['./linked/b.js', a, 'hook'],
    ['../cjs/c.js', a, 'node'], // a CommonJS scope inside the package
    ['./x.js', url('node_modules/plain-pkg/y.js'), 'node'], // a package without a type
    ['./missing.js', a, 'node'],
    ['./folder.js', a, 'node'], // a directory: Node refuses it
    ['./100%25.js', a, 'node'],
    ['./b.js?x=1', a, 'node'],
    ['esm-pkg/lib/b.js', a, 'node'], // a bare name
    ['../node_modules/esm-pkg/lib/b.js', url('app/main.js'), 'node'], // not from a package
    ['./b', a, 'node'], // no extension: Node refuses it, the hook does not guess
  ]
  const expected = nodeResolves(cases.map(([s, p]) => [s, p]))
  cases.forEach(([specifier, parent, by], i) => {
    const answer = resolvePackageModule(specifier, parent)
    if (by === 'node') {
      assert.equal(answer, undefined, `${specifier} from ${parent} is left to Node`)
    } else {
      assert.ok(answer, `${specifier} from ${parent} is answered by the hook`)
      assert.equal(answer.url, expected[i], `${specifier} from ${parent}`)
      assert.equal(answer.format, 'module')
    }
  })
  // The linked folder's file has the real path's identity, not its own.
  assert.equal(resolvePackageModule('./linked/b.js', a)?.url, url('node_modules/esm-pkg/lib/b.js'))
})

test("drizzle-orm's own imports resolve as Node resolves them", () => {
  // The package the hook is for: every relative import of its pg-core entry and of the modules
  // that entry names, compared with Node's answer.
  const entries = nodeResolves([['drizzle-orm/pg-core', import.meta.url]])
  const entry = entries[0]
  assert.ok(entry)
  const cases: [string, string][] = []
  const parents = [entry]
  for (const parent of parents) {
    const source = readFileSync(fileURLToPath(parent), 'utf8')
    for (const [, specifier] of source.matchAll(/from\s+["'](\.{1,2}\/[^"']+)["']/g)) {
      cases.push([specifier!, parent])
      if (parent === entry) parents.push(new URL(specifier!, parent).href)
    }
  }
  assert.ok(cases.length > 100, `only ${cases.length} imports found`)
  const expected = nodeResolves(cases)
  cases.forEach(([specifier, parent], i) => {
    assert.equal(resolvePackageModule(specifier, parent)?.url, expected[i], `${specifier}`)
  })
})

test('modules loaded through the hook keep one identity per file', () => {
  // a.js imports b.js directly and through the linked folder: one module, as with Node alone.
  const script =
    `const m = await import(${JSON.stringify(pathToFileURL(HOOK).href)})\n` +
    'm.registerPackageModuleResolve()\n' +
    `const a = await import(${JSON.stringify(url('node_modules/esm-pkg/lib/a.js'))})\n` +
    `const y = await import(${JSON.stringify(url('node_modules/plain-pkg/y.js'))})\n` +
    'console.log(JSON.stringify({ same: a.same, x: y.x }))'
  const out = execFileSync(
    process.execPath,
    ['--no-warnings', '--input-type=module', '-e', script],
    { env: { PATH: process.env.PATH ?? '' } },
  )
  assert.deepEqual(JSON.parse(out.toString()), { same: true, x: 1 })
})

test('on a Node without module.registerHooks (before 22.15) the CLI loads, without the hook', () => {
  // The hook is only a speed-up: its absence must not stop the command from loading.
  const script =
    "(await import('node:module')).default.registerHooks = undefined\n" +
    `const m = await import(${JSON.stringify(pathToFileURL(HOOK).href)})\n` +
    'console.log(JSON.stringify(m.registerPackageModuleResolve()))'
  const out = execFileSync(
    process.execPath,
    ['--no-warnings', '--input-type=module', '-e', script],
    {
      env: { PATH: process.env.PATH ?? '' },
    },
  )
  assert.equal(JSON.parse(out.toString()), false)
})
