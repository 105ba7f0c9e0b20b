/**
 * How a brief scores a repository's paths for a query (compute-host/repo-brief/path-scores.ts):
 * the joined-string index gives, for generated trees and queries, exactly the scores of the rule
 * it implements (3 per term in the file name, otherwise 1 per term in the folder), never matches
 * across two entries, and a brief lists each file once, a changed one too.
 */
import assert from 'node:assert/strict'
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { after, test } from 'node:test'
import { composeRepoBrief } from '../compute-host/repo-brief/compose.ts'
import { indexPaths, scorePaths } from '../compute-host/repo-brief/path-scores.ts'
import { makeRepository } from './support/brief-fixtures.ts'
import { seededRandom } from './support/seeded-random.ts'

const dir = await mkdtemp(join(tmpdir(), 'popagent-path-scores-'))
after(() => rm(dir, { recursive: true, force: true }))

/** The rule, written the plain way: a substring test of every file for every term. */
function plainScores(paths: string[], terms: string[]): number[] {
  return paths.map((path) => {
    const name = basename(path).toLowerCase()
    const folder = dirname(path).toLowerCase()
    let score = 0
    for (const term of terms) {
      if (name.includes(term)) score += 3
      else if (folder.includes(term)) score += 1
    }
    return score
  })
}

test('the index scores generated trees exactly as the plain rule does', () => {
  const syllables = ['par', 'ser', 'rou', 'ter', 'ca', 'che', 'lim', 'it', 'x', 'Kit', '0', '12']
  for (let seed = 1; seed <= 40; seed++) {
    // Seeded, so a failure names a seed that repeats it.
    const next = seededRandom(seed)
    const pick = () => syllables[Math.floor(next() * syllables.length)]!
    const word = () => Array.from({ length: 1 + Math.floor(next() * 3) }, pick).join('')
    const paths = [
      ...new Set(
        Array.from({ length: Math.floor(next() * 300) }, () => {
          const depth = Math.floor(next() * 4)
          const folders = Array.from({ length: depth }, () => `${word()}-${word()}`)
          return [...folders, `${word()}.ts`].join('/')
        }),
      ),
    ]
    const terms = Array.from({ length: Math.floor(next() * 6) }, () => word().toLowerCase())
    const index = indexPaths(paths)
    assert.deepEqual(
      [...scorePaths(index, terms)],
      plainScores(paths, terms),
      `seed ${seed}, terms ${terms.join(',')}`,
    )
  }
})

test('a term never matches across two names or two folders', () => {
  const paths = ['ab/cd.ts', 'ef/gh.ts', 'ab/ij.ts']
  const index = indexPaths(paths)
  // "tsgh" would span "cd.ts" and "gh.ts", "bef" "ab" and "ef", were the entries run together.
  assert.deepEqual([...scorePaths(index, ['tsgh', 'bef', 'abe'])], [0, 0, 0])
  assert.deepEqual([...scorePaths(index, ['gh', 'ab'])], [1, 3, 1])
  assert.throws(() => scorePaths(index, ['a\nb']), /line break/)
})

test('a changed file that only its symbols match is listed once', async () => {
  const repo = await realpath(
    await makeRepository(join(dir, 'changed'), {
      'src/alpha.ts': 'export const alphaValue = 1\n',
      'src/beta.ts': 'export const betaValue = 1\n',
    }),
  )
  // Changed, and its path does not hold the query's term: only its symbol does.
  await writeFile(join(repo, 'src/beta.ts'), 'export const limitValue = 2\n')
  const brief = await composeRepoBrief(repo, 'where is the limit')
  assert.deepEqual(
    brief.files.map((f) => [f.path, f.score, f.change]),
    [['src/beta.ts', 2, 'M']],
  )
})
