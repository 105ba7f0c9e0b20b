/**
 * A `.git` written to hurt the brief's in-process reader: an ignore pattern that makes a
 * backtracking matcher take exponential time, packs whose deltas loop or inflate without end,
 * and an index v4 whose shared name prefixes grow quadratically. Each must cost little and
 * leave the brief standing (issue: repo-brief denial of service).
 */
import assert from 'node:assert/strict'
import { mkdtemp, readdir, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { resourceUsage } from 'node:process'
import { after, before, describe, test } from 'node:test'
import { deflateSync } from 'node:zlib'
import { parseIndex, UnsupportedIndex } from '../compute-host/repo-brief/git-index.ts'
import { openPack } from '../compute-host/repo-brief/git-pack.ts'
import { readGitStatus } from '../compute-host/repo-brief/git-status.ts'
import { createReadBudget } from '../compute-host/repo-brief/read-budget.ts'
import { createRepositoryFiles } from '../compute-host/repo-brief/repository-files.ts'
import { wildmatch } from '../compute-host/repo-brief/wildmatch.ts'
import { git, gitSays, makeRepository } from './support/brief-fixtures.ts'

const MiB = 1024 * 1024
const OFS_DELTA = 6
const REF_DELTA = 7

type Entry = { oid: string; type: number; size: number; body: Buffer; base?: string | number }

/** A pack of `entries` (a number base is an entry's index: an offset delta) and its v2 index. */
function pack(entries: Entry[]): { pack: Buffer; idx: Buffer } {
  const parts = [Buffer.from('PACK\0\0\0\x02'), u32(entries.length)]
  const offsets: number[] = []
  let at = 12
  for (const entry of entries) {
    offsets.push(at)
    const head = [(entry.type << 4) | (entry.size & 0x0f)]
    for (let rest = Math.floor(entry.size / 16); rest > 0; rest = Math.floor(rest / 128)) {
      head[head.length - 1]! |= 0x80
      head.push(rest & 0x7f)
    }
    const base =
      typeof entry.base === 'number'
        ? ofs(at - offsets[entry.base]!)
        : entry.base
          ? Buffer.from(entry.base, 'hex')
          : Buffer.alloc(0)
    const part = Buffer.concat([Buffer.from(head), base, deflateSync(entry.body)])
    parts.push(part)
    at += part.length
  }
  parts.push(Buffer.alloc(20))
  const sorted = entries.map((e, i) => ({ oid: e.oid, at: offsets[i]! }))
  sorted.sort((a, b) => (a.oid < b.oid ? -1 : 1))
  const fanout = Buffer.alloc(1024)
  for (let byte = 0; byte < 256; byte++) {
    fanout.writeUInt32BE(
      sorted.filter((e) => parseInt(e.oid.slice(0, 2), 16) <= byte).length,
      byte * 4,
    )
  }
  const idx = Buffer.concat([
    Buffer.from([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]),
    fanout,
    ...sorted.map((e) => Buffer.from(e.oid, 'hex')),
    Buffer.alloc(4 * sorted.length),
    ...sorted.map((e) => u32(e.at)),
    Buffer.alloc(40),
  ])
  return { pack: Buffer.concat(parts), idx }
}

const u32 = (n: number) => Buffer.from([n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff])

// git's offset encoding: big-endian base-128, each continued byte one less.
function ofs(back: number): Buffer {
  const bytes = [back & 0x7f]
  while ((back >>= 7)) bytes.unshift(0x80 | (--back & 0x7f))
  return Buffer.from(bytes)
}

const oid = (n: number) => n.toString(16).padStart(40, '0')

describe('a hostile .git costs the brief little', () => {
  let dir: string
  before(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'popagent-hostile-git-')))
  })
  after(() => rm(dir, { recursive: true, force: true }))

  test('an ignore pattern that backtracks exponentially in a regex matches at once', async () => {
    const pattern = '*a*a*a*a*a*a*a*a*a*a*b'
    const name = 'a'.repeat(40)
    const started = performance.now()
    assert.equal(wildmatch(pattern).test(name), false) // a regex took 26 s
    assert.equal(wildmatch(pattern).test(`${name}b`), true)
    assert.ok(performance.now() - started < 100, `${performance.now() - started} ms`)

    const repo = await makeRepository(join(dir, 'ignore'), { '.gitignore': `${pattern}\n` })
    await writeFile(join(repo, name), 'x')
    await writeFile(join(repo, `${name}b`), 'x')
    const mine = await readGitStatus(repo, new AbortController().signal)
    assert.deepEqual([...mine!.changes], gitSays(repo).changes)
  })

  test('a delta that is its own base is refused before it inflates twice', async () => {
    const repo = await makeRepository(join(dir, 'loop'), { 'a.txt': 'a\n' })
    const head = git(repo, 'rev-parse', 'HEAD').toString().trim()
    // HEAD's commit becomes a reference delta on itself: 8 MiB of delta per turn of the loop.
    const objects = join(repo, '.git/objects')
    for (const name of await readdir(objects)) {
      if (/^[0-9a-f]{2}$/.test(name)) await rm(join(objects, name), { recursive: true })
    }
    const body = Buffer.alloc(8 * MiB)
    const built = pack([{ oid: head, type: REF_DELTA, size: body.length, body, base: head }])
    await writeFile(join(objects, 'pack/pack-loop.pack'), built.pack)
    await writeFile(join(objects, 'pack/pack-loop.idx'), built.idx)

    const peak = resourceUsage().maxRSS
    const mine = await readGitStatus(repo, new AbortController().signal)
    const grew = (resourceUsage().maxRSS - peak) * 1024
    assert.equal(mine!.head, head)
    assert.deepEqual([...mine!.changes], [], 'the staged column is left out, the brief stands')
    // Followed to the old depth of 1000, the loop held 8 GB.
    assert.ok(grew < 128 * MiB, `grew ${grew / MiB} MiB`)
  })

  test('delta chains stop at git’s depth and at the brief’s inflate budget', async () => {
    const repo = join(dir, 'chains')
    await makeRepository(repo, { 'a.txt': 'a\n' })
    // 60 tiny offset deltas, each on the one before, above a blob.
    const deep: Entry[] = [{ oid: oid(1), type: 3, size: 1, body: Buffer.from('x') }]
    for (let i = 1; i <= 60; i++) {
      const body = Buffer.from([1, 1, 0x90, 1]) // 1 byte → 1 byte: copy it
      deep.push({ oid: oid(i + 1), type: OFS_DELTA, size: body.length, body, base: i - 1 })
    }
    // 8 deltas of 1 MiB each (never applied: the budget runs out first), above a blob.
    const wide: Entry[] = [{ oid: oid(100), type: 3, size: 1, body: Buffer.from('x') }]
    for (let i = 1; i <= 8; i++) {
      const body = Buffer.alloc(MiB)
      wide.push({ oid: oid(100 + i), type: OFS_DELTA, size: MiB, body, base: i - 1 })
    }
    const files = createRepositoryFiles(repo)
    for (const [name, entries] of [
      ['deep', deep],
      ['wide', wide],
    ] as const) {
      const built = pack(entries)
      await writeFile(join(repo, `.git/${name}.pack`), built.pack)
      await writeFile(join(repo, `.git/${name}.idx`), built.idx)
    }
    const lookup = () => assert.fail('no reference deltas here')
    const open = (name: string, budget = createReadBudget(4 * MiB, MiB)) =>
      openPack(files, `.git/${name}.idx`, `.git/${name}.pack`, 20, 64 * MiB, budget)

    const deepPack = open('deep')
    const at = (n: number) => deepPack.find(Buffer.from(oid(n), 'hex'))!
    assert.equal(deepPack.read(at(50), lookup, 0).data.toString(), 'x')
    assert.throws(() => open('deep').read(at(61), lookup, 0), /delta chain too deep/)

    const widePack = open('wide')
    const top = widePack.find(Buffer.from(oid(108), 'hex'))!
    assert.throws(() => widePack.read(top, lookup, 0), /budget spent/)
  })

  test('an index v4 name past PATH_MAX is refused, not grown entry by entry', () => {
    // Each entry keeps all of the name before it and adds 100 bytes: 200 entries, 20 KB names.
    const fixed = Buffer.concat([Buffer.alloc(60), Buffer.from([0x0f, 0xff])])
    const entry = Buffer.concat([
      fixed,
      Buffer.from([0]),
      Buffer.alloc(100, 0x61),
      Buffer.from([0]),
    ])
    const index = (count: number) =>
      Buffer.concat([
        Buffer.from('DIRC'),
        u32(4),
        u32(count),
        ...Array(count).fill(entry),
        Buffer.alloc(20),
      ])
    assert.throws(() => parseIndex(index(200), 20), UnsupportedIndex)
    // Under the limit it still reads: 40 entries make a 4000-byte name.
    assert.equal(parseIndex(index(40), 20).entries.at(-1)!.path.length, 4000)
  })
})
