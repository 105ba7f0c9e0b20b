/**
 * A directory swapped for a link to the outside while the file tools run. A worker thread flips
 * `box` between a real directory in the repository and a link to a directory outside holding a
 * canary, as fast as it can; reads and writes through `box/` race it. The contained filesystem
 * must never return the canary nor create anything outside; the bare Mastra class, which checks
 * a path and then uses it, is shown to leak under the same race.
 */
import assert from 'node:assert/strict'
import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { Worker } from 'node:worker_threads'
import { LocalFilesystem } from '@mastra/core/workspace'
import { ContainedFilesystem } from '../compute-host/workspaces/contained-filesystem.ts'

const CANARY = 'CANARY-behind-the-swapped-link'
const INSIDE = 'inside-content'
const ROUNDS = 3_000
const CONCURRENCY = 8

let dir: string
let repo: string
let outside: string

before(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'popagent-swap-')))
  repo = join(dir, 'repo')
  outside = join(dir, 'outside')
  await mkdir(join(repo, 'box'), { recursive: true })
  await mkdir(outside)
  await writeFile(join(repo, 'box', 'f.txt'), INSIDE)
  await writeFile(join(outside, 'f.txt'), CANARY)
  await symlink(outside, join(repo, '.box-link'))
})
after(() => rm(dir, { recursive: true, force: true }))

// Runs in a worker so the flips happen while the main thread's file calls are in flight.
const SWAPPER = `
const { renameSync } = require('node:fs')
const { workerData, parentPort } = require('node:worker_threads')
const { box, real, link } = workerData
const stop = new Int32Array(workerData.stop)
let swaps = 0
while (Atomics.load(stop, 0) === 0) {
  try {
    renameSync(box, real); renameSync(link, box)   // box is now the link out
    renameSync(box, link); renameSync(real, box)   // box is the real directory again
    swaps++
  } catch {}
}
parentPort.postMessage(swaps)
`

/** Runs `attempt` ROUNDS times, CONCURRENCY at a time, while `box` is being swapped. */
async function underSwap(attempt: (i: number) => Promise<void>): Promise<number> {
  const stop = new SharedArrayBuffer(4)
  const worker = new Worker(SWAPPER, {
    eval: true,
    workerData: {
      box: join(repo, 'box'),
      real: join(repo, '.box-real'),
      link: join(repo, '.box-link'),
      stop,
    },
  })
  const swapped = new Promise<number>((resolve) => worker.once('message', resolve))
  let next = 0
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < ROUNDS) await attempt(next++).catch(() => undefined)
    }),
  )
  Atomics.store(new Int32Array(stop), 0, 1)
  const swaps = await swapped
  await worker.terminate()
  return swaps
}

test('a link swapped in after the check never leads a read or a write outside', async () => {
  const fs = new ContainedFilesystem({ root: repo })
  let insideReads = 0
  let canaryReads = 0
  const swaps = await underSwap(async (i) => {
    if (i % 2 === 0) {
      const text = String(await fs.readFile('box/f.txt', { encoding: 'utf-8' }))
      if (text === INSIDE) insideReads++
      if (text.includes(CANARY)) canaryReads++
    } else {
      await fs.writeFile(`box/w-${i}.txt`, 'written', { recursive: false })
    }
  })
  assert.ok(swaps > 100, `the swapper ran ${swaps} swaps`)
  assert.ok(insideReads > 0, 'some reads went through while the directory was real')
  assert.equal(canaryReads, 0, 'a read returned the canary')
  assert.deepEqual(await readdir(outside), ['f.txt'], 'a write landed outside')
  assert.equal(await readFile(join(outside, 'f.txt'), 'utf8'), CANARY)
})

test('the bare Mastra class leaks the canary under the same race', async () => {
  const base = new LocalFilesystem({ basePath: repo, contained: true })
  let canaryReads = 0
  await underSwap(async () => {
    const text = String(await base.readFile('box/f.txt', { encoding: 'utf-8' }))
    if (text.includes(CANARY)) canaryReads++
  })
  // If this stops failing to hold, Mastra closed the window and the adapter can be reviewed.
  assert.ok(canaryReads > 0, 'the base class never read through the swapped link')
})
