import { inflateSync } from 'node:zlib'
import { OBJECT_TYPES, openPack, type GitObject, type Pack } from './git-pack.ts'
import { createReadBudget } from './read-budget.ts'
import type { RepositoryFiles } from './repository-files.ts'

export type TreeEntry = { name: string; mode: number; oid: string }

// Trees and commits are what the brief reads; a tree this large has over a million entries.
const MAX_OBJECT_BYTES = 64 * 1024 * 1024
const OBJECTS = '.git/objects'
// Per brief, as `.git` is the agent's: what may be inflated and kept (read-budget.ts), and how
// many packs and how much of their indexes are read; objects past these are unreadable.
const MAX_INFLATED_BYTES = 256 * 1024 * 1024
const MAX_CACHED_BYTES = 64 * 1024 * 1024
const MAX_PACKS = 64
const MAX_TOTAL_IDX_BYTES = 512 * 1024 * 1024

/**
 * The repository's object database, read as data: packs first (where nearly everything lives),
 * then loose objects. Alternates (objects borrowed from another repository) are not followed:
 * they lie outside the repository. Call `close` when done: packs stay open for the brief.
 */
export function createObjectStore(files: RepositoryFiles, hashBytes: number) {
  let packs: Pack[] | undefined
  const budget = createReadBudget(MAX_INFLATED_BYTES, MAX_CACHED_BYTES)
  const openPacks = (): Pack[] => {
    const found: Pack[] = []
    const names = files.readDir(`${OBJECTS}/pack`).map((d) => d.name)
    const indexes = names.filter((n) => n.endsWith('.idx')).sort()
    let idxLeft = MAX_TOTAL_IDX_BYTES
    for (const name of indexes.slice(0, MAX_PACKS)) {
      const stem = `${OBJECTS}/pack/${name.slice(0, -4)}`
      try {
        const paths = [`${stem}.idx`, `${stem}.pack`] as const
        const pack = openPack(files, ...paths, hashBytes, MAX_OBJECT_BYTES, budget, idxLeft)
        idxLeft -= pack.indexBytes
        found.push(pack)
      } catch {
        // An unreadable pack is skipped; its objects are then missing.
      }
    }
    return found
  }

  const read = (oid: string, depth = 0): GitObject => {
    if (!/^[0-9a-f]+$/.test(oid) || oid.length !== hashBytes * 2) throw new Error(`bad id ${oid}`)
    packs ??= openPacks()
    const key = Buffer.from(oid, 'hex')
    for (const pack of packs) {
      const offset = pack.find(key)
      if (offset !== undefined) return pack.read(offset, read, depth)
    }
    const loose = files.read(`${OBJECTS}/${oid.slice(0, 2)}/${oid.slice(2)}`, MAX_OBJECT_BYTES)
    const data = inflateSync(loose, { maxOutputLength: MAX_OBJECT_BYTES + 64 })
    budget.spend(data.length)
    const nul = data.indexOf(0)
    const [type, size] = data.toString('latin1', 0, Math.max(nul, 0)).split(' ')
    const known = OBJECT_TYPES.find((t) => t === type)
    if (nul < 0 || !known || Number(size) !== data.length - nul - 1) {
      throw new Error(`bad loose object ${oid}`)
    }
    return { type: known, data: data.subarray(nul + 1) }
  }

  const expect = (oid: string, type: GitObject['type']) => {
    const object = read(oid)
    if (object.type !== type) throw new Error(`${oid} is a ${object.type}, not a ${type}`)
    return object.data
  }

  return {
    /** The entries of a tree object. */
    tree(oid: string): TreeEntry[] {
      const data = expect(oid, 'tree')
      const entries: TreeEntry[] = []
      let p = 0
      while (p < data.length) {
        const space = data.indexOf(0x20, p)
        const nul = data.indexOf(0, space)
        if (space < 0 || nul < 0 || nul + 1 + hashBytes > data.length) {
          throw new Error(`bad tree ${oid}`)
        }
        entries.push({
          mode: parseInt(data.toString('latin1', p, space), 8),
          name: data.toString('utf8', space + 1, nul),
          oid: data.toString('hex', nul + 1, nul + 1 + hashBytes),
        })
        p = nul + 1 + hashBytes
      }
      return entries
    },
    /** The root tree of a commit. */
    commitTree(oid: string): string {
      const match = /^tree ([0-9a-f]+)\n/.exec(expect(oid, 'commit').toString('latin1', 0, 200))
      if (!match) throw new Error(`bad commit ${oid}`)
      return match[1]!
    },
    close() {
      for (const pack of packs ?? []) pack.close()
    },
  }
}

export type ObjectStore = ReturnType<typeof createObjectStore>
