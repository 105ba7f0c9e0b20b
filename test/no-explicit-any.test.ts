/**
 * Tests read responses through the typed client, contract schemas or small typed helpers; a cast
 * to `any` there hides the very drift the test exists to catch (a route whose body left
 * `AppType`, a wire shape that changed). This keeps new ones out, browser tests included.
 */
import assert from 'node:assert/strict'
import { readdir, readFile } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'node:test'
import { stripComments } from '../scripts/import-zones.ts'

const TEST_DIR = dirname(fileURLToPath(import.meta.url))
const CAST = /\bas\s+any\b/g

/** `file:line` of every cast to `any` in code (comments do not count). */
export function castsToAny(file: string, source: string): string[] {
  const code = stripComments(source)
  return [...code.matchAll(CAST)].map((m) => `${file}:${code.slice(0, m.index).split('\n').length}`)
}

async function testSources(dir: string): Promise<string[]> {
  const files: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name)
    if (entry.isFile() && /\.tsx?$/.test(entry.name)) files.push(path)
  }
  return files
}

test('no test casts to any', async () => {
  const found: string[] = []
  for (const path of await testSources(TEST_DIR)) {
    found.push(...castsToAny(relative(TEST_DIR, path), await readFile(path, 'utf8')))
  }
  assert.deepEqual(found, [])
})

test('the check finds a cast in code and passes over comments', () => {
  const cast = ['as', 'any'].join(' ')
  assert.deepEqual(castsToAny('a.ts', `const a = 1\nconst b = (x ${cast}).y\n`), ['a.ts:2'])
  assert.deepEqual(castsToAny('a.ts', `const b = (x ${cast}[])\n`), ['a.ts:1'])
  assert.deepEqual(
    castsToAny('a.ts', `// x ${cast}\n/* ${cast} */\nconst anyone = '${cast}one'\n`),
    [],
  )
})
