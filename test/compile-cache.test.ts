/**
 * popagent's module compile cache (cli/compile-cache.ts) is used only where it is as private as
 * the code: a directory it made 0700, never one others can write or a link to elsewhere. Each
 * case runs in its own Node process, since enabling the cache changes the process.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { fileURLToPath } from 'node:url'

const MODULE = fileURLToPath(new URL('../cli/compile-cache.ts', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'popagent-compile-cache-'))
after(() => rmSync(dir, { recursive: true, force: true }))

/** What enabling says for an install at `root`, in a fresh Node with no cache variables. */
function enableIn(root: string, extraEnv: Record<string, string> = {}) {
  const env = { PATH: process.env.PATH ?? '', ...extraEnv }
  const script = `import(${JSON.stringify(MODULE)}).then((m) => console.log(m.enableOwnCompileCache(${JSON.stringify(root)}, process.env)))`
  return execFileSync(process.execPath, ['-e', script], { env }).toString().trim()
}

const cacheOf = (root: string) => join(root, 'node_modules', '.cache', 'popagent-compile')

test('a new install gets a private cache directory', () => {
  const root = join(dir, 'fresh')
  mkdirSync(root)
  assert.equal(enableIn(root), 'enabled')
  assert.equal(statSync(cacheOf(root)).mode & 0o777, 0o700)
})

test('a cache directory others can write, or a link, is not used', () => {
  const open = join(dir, 'open')
  mkdirSync(cacheOf(open), { recursive: true })
  chmodSync(cacheOf(open), 0o777)
  assert.equal(enableIn(open), 'not private')

  const linked = join(dir, 'linked')
  const elsewhere = join(dir, 'elsewhere')
  mkdirSync(elsewhere, { mode: 0o700 })
  mkdirSync(join(linked, 'node_modules', '.cache'), { recursive: true })
  symlinkSync(elsewhere, cacheOf(linked))
  assert.equal(enableIn(linked), 'not private')
})

test('a cache under a .cache others can write is not used', () => {
  const shared = join(dir, 'shared')
  mkdirSync(join(shared, 'node_modules', '.cache'), { recursive: true })
  chmodSync(join(shared, 'node_modules', '.cache'), 0o777)
  assert.equal(enableIn(shared), 'not private')
})

test("the operator's NODE_COMPILE_CACHE or NODE_DISABLE_COMPILE_CACHE wins", () => {
  const root = join(dir, 'operator')
  mkdirSync(root)
  assert.equal(enableIn(root, { NODE_DISABLE_COMPILE_CACHE: '1' }), 'left to the environment')
})
