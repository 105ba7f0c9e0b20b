import { createHash } from 'node:crypto'
import type { IndexEntry } from './git-index.ts'

type Directory = {
  path: string
  name: string
  /** Each entry's `<mode> <name>\0`, then its id's bytes. */
  heads: string[]
  ids: Buffer[]
  complete: boolean
}

/**
 * The tree id each directory of the index would get from `git write-tree`, computed with
 * node:crypto: a directory equal to HEAD's has the same id, so comparing ids tells which of
 * HEAD's trees need reading at all (after a commit, none). Index order is tree order (a
 * directory sorts as its name plus `/`), so each tree is built in one pass. A directory holding
 * a conflicted or intent-to-add entry gets no id, and is compared entry by entry.
 */
export function indexTreeIds(
  entries: IndexEntry[],
  algorithm: 'sha1' | 'sha256',
): Map<string, string> {
  const ids = new Map<string, string>()
  const open = (path: string, name: string): Directory => ({
    path,
    name,
    heads: [],
    ids: [],
    complete: true,
  })
  const stack: Directory[] = [open('', '')]
  const close = () => {
    const done = stack.pop()!
    const id = treeId(done, algorithm)
    const parent = stack.at(-1)
    if (!parent) return
    if (!id) return void (parent.complete = false)
    parent.heads.push(`40000 ${done.name}\0`)
    parent.ids.push(id)
  }
  for (const entry of entries) {
    const names = entry.path.split('/')
    const directories = names.length - 1
    // Close what this entry is not under, then open what it is under.
    let shared = 0
    while (
      shared < directories &&
      shared + 1 < stack.length &&
      stack[shared + 1]!.name === names[shared]
    ) {
      shared++
    }
    while (stack.length > shared + 1) close()
    for (let depth = shared; depth < directories; depth++) {
      stack.push(open(names.slice(0, depth + 1).join('/'), names[depth]!))
    }
    const current = stack.at(-1)!
    if (entry.stage !== 0 || entry.intentToAdd) current.complete = false
    else {
      current.heads.push(`${entry.mode.toString(8)} ${names[directories]}\0`)
      current.ids.push(entry.oidBytes)
    }
  }
  while (stack.length > 0) close()
  return ids

  function treeId(directory: Directory, algorithm: 'sha1' | 'sha256'): Buffer | undefined {
    if (!directory.complete) return undefined
    let length = 0
    for (let i = 0; i < directory.heads.length; i++) {
      length += Buffer.byteLength(directory.heads[i]!) + directory.ids[i]!.length
    }
    const body = Buffer.allocUnsafe(length)
    let at = 0
    for (let i = 0; i < directory.heads.length; i++) {
      at += body.write(directory.heads[i]!, at)
      at += directory.ids[i]!.copy(body, at)
    }
    const id = createHash(algorithm).update(`tree ${length}\0`).update(body).digest()
    ids.set(directory.path, id.toString('hex'))
    return id
  }
}
