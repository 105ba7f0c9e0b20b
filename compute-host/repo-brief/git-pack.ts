import { closeSync } from 'node:fs'
import { inflateSync } from 'node:zlib'
import { applyDelta } from './git-delta.ts'
import type { ReadBudget } from './read-budget.ts'
import { readAt, type RepositoryFiles } from './repository-files.ts'

export type GitObject = { type: 'commit' | 'tree' | 'blob' | 'tag'; data: Buffer }

export const OBJECT_TYPES = [undefined, 'commit', 'tree', 'blob', 'tag'] as const
const OFS_DELTA = 6
const REF_DELTA = 7
const IDX_MAGIC = 0xff744f63
// An index of 256 MiB describes some nine million objects; past that the brief does without.
const MAX_IDX_BYTES = 256 * 1024 * 1024
// git's own default chain depth; a deeper one is refused: each level may inflate a whole object.
const MAX_CHAIN = 50

export type Pack = ReturnType<typeof openPack>

/**
 * One pack file and its version-2 index, read as data: the index is searched in memory, and an
 * object is read at its offset with a bounded read, inflated to exactly its recorded size, and
 * rebuilt through its delta chain (offset deltas within the pack, reference deltas through
 * `lookup`). Decoded objects are kept for the brief (in `budget`, which also counts what is
 * inflated), as sibling trees share their bases. A chain that comes back to an entry it is
 * already resolving is refused at once, before anything more is inflated.
 */
export function openPack(
  files: RepositoryFiles,
  idxPath: string,
  packPath: string,
  hashBytes: number,
  maxObjectBytes: number,
  budget: ReadBudget,
  maxIdxBytes = MAX_IDX_BYTES,
) {
  const idx = files.read(idxPath, Math.min(maxIdxBytes, MAX_IDX_BYTES))
  if (idx.length < 8 + 1024 || idx.readUInt32BE(0) !== IDX_MAGIC || idx.readUInt32BE(4) !== 2) {
    throw new Error(`unsupported pack index ${idxPath}`)
  }
  const fanout = (byte: number) => (byte < 0 ? 0 : idx.readUInt32BE(8 + byte * 4))
  const count = fanout(255)
  const oidsAt = 8 + 1024
  const offsetsAt = oidsAt + count * (hashBytes + 4)
  const largeAt = offsetsAt + count * 4
  if (idx.length < largeAt) throw new Error(`truncated pack index ${idxPath}`)
  let fd: number | undefined
  const resolving = new Set<number>()

  const offsetOf = (i: number) => {
    const small = idx.readUInt32BE(offsetsAt + i * 4)
    if (!(small & 0x80000000)) return small
    const at = largeAt + (small & 0x7fffffff) * 8
    if (at + 8 > idx.length) throw new Error('bad large offset')
    return Number(idx.readBigUInt64BE(at))
  }

  const read = (
    offset: number,
    lookup: (oid: string, depth: number) => GitObject,
    depth: number,
  ): GitObject => {
    const cached = budget.cached(`${packPath}:${offset}`)
    if (cached) return cached
    if (depth > MAX_CHAIN) throw new Error('delta chain too deep')
    if (resolving.has(offset)) throw new Error('delta loop')
    fd ??= files.open(packPath).fd
    const header = readAt(fd, offset, 32 + hashBytes)
    let p = 0
    const byte = () => {
      if (p >= header.length) throw new Error('truncated pack entry')
      return header[p++]!
    }
    let c = byte()
    const type = (c >> 4) & 7
    let size = c & 0x0f
    let shift = 4
    while (c & 0x80 && shift < 56) {
      c = byte()
      size += (c & 0x7f) * 2 ** shift
      shift += 7
    }
    let base: (() => GitObject) | undefined
    if (type === OFS_DELTA) {
      c = byte()
      let back = c & 0x7f
      while (c & 0x80) {
        c = byte()
        back = (back + 1) * 128 + (c & 0x7f)
      }
      const at = offset - back
      if (back <= 0 || at < 0) throw new Error('bad delta base offset')
      base = () => read(at, lookup, depth + 1)
    } else if (type === REF_DELTA) {
      if (p + hashBytes > header.length) throw new Error('truncated pack entry')
      const oid = header.toString('hex', p, p + hashBytes)
      p += hashBytes
      base = () => lookup(oid, depth + 1)
    } else if (!OBJECT_TYPES[type]) throw new Error(`bad pack entry type ${type}`)
    if (size > maxObjectBytes) throw new Error('object too large')
    budget.spend(size)
    // Deflate never grows data by more than this, so the whole stream is in the read.
    const compressed = readAt(fd, offset + p, size + (size >> 10) + 64)
    const data = inflateSync(compressed, { maxOutputLength: Math.max(size, 1) })
    if (data.length !== size) throw new Error('pack entry size mismatch')
    let object: GitObject
    if (base) {
      resolving.add(offset)
      let from: GitObject
      try {
        from = base()
      } finally {
        resolving.delete(offset)
      }
      object = { type: from.type, data: applyDelta(from.data, data, maxObjectBytes) }
      budget.spend(object.data.length)
    } else object = { type: OBJECT_TYPES[type]!, data }
    budget.keep(`${packPath}:${offset}`, object)
    return object
  }

  return {
    indexBytes: idx.length,
    /** The object's offset in the pack, or undefined when the pack does not hold it. */
    find(oid: Buffer): number | undefined {
      let low = fanout(oid[0]! - 1)
      let high = fanout(oid[0]!)
      while (low < high) {
        const middle = (low + high) >>> 1
        const at = oidsAt + middle * hashBytes
        const order = idx.compare(oid, 0, hashBytes, at, at + hashBytes)
        if (order === 0) return offsetOf(middle)
        if (order > 0) high = middle
        else low = middle + 1
      }
      return undefined
    },
    read,
    close() {
      if (fd !== undefined) closeSync(fd)
      fd = undefined
    },
  }
}
