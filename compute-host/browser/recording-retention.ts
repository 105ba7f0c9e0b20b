import { readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { Db } from '../../db/index.ts'
import {
  existingBrowserRecordings,
  pruneBrowserRecordings,
} from '../../runtime/browser/recordings.ts'

const DAY_MS = 86_400_000
/** The recordings folder holds `<id>.zip` files only (and `.part` files while one is written). */
const FILE = /^(brr_[0-9A-HJKMNP-TV-Z]{26})\.zip$/

/**
 * Browser recordings' retention (docs/browser.md, "Recordings"): deletes the rows of recordings
 * that stopped more than `retentionDays` ago and their files, then every file in the folder whose
 * row is gone (its chat session or task was deleted and the rows cascaded). Other files are left
 * alone. Answers how many files or rows went.
 */
export async function sweepBrowserRecordings(input: {
  db: Db
  dir: string
  retentionDays: number
  now?: number
}): Promise<number> {
  const fileOf = (id: string) => join(input.dir, `${id}.zip`)
  const before = new Date((input.now ?? Date.now()) - input.retentionDays * DAY_MS)
  const pruned = await pruneBrowserRecordings(input.db, before)
  await Promise.all(pruned.map((id) => rm(fileOf(id), { force: true })))
  const names = await readdir(input.dir).catch(() => [] as string[])
  const ids = names.flatMap((n) => FILE.exec(n)?.[1] ?? [])
  const kept = await existingBrowserRecordings(input.db, ids)
  const orphans = ids.filter((id) => !kept.has(id))
  await Promise.all(orphans.map((id) => rm(fileOf(id), { force: true })))
  return pruned.length + orphans.length
}
