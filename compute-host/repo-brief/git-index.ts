export type IndexEntry = {
  path: string
  /** 0o100644, 0o100755, 0o120000 (link) or 0o160000 (submodule). */
  mode: number
  oid: string
  /** The same id as bytes (a view of the index file, not a copy). */
  oidBytes: Buffer
  /** 0 for a merged path; 1–3 for the base, ours and theirs of a conflict. */
  stage: number
  /** Seconds only: sub-second times are not compared (worktree-changes.ts says why). */
  ctimeSec: number
  mtimeSec: number
  ino: number
  uid: number
  gid: number
  /** The work-tree size when the entry was stat'ed, modulo 2^32; 0 when it never was. */
  size: number
  skipWorktree: boolean
  intentToAdd: boolean
}

export type GitIndex = { entries: IndexEntry[] }

/** An index this reader does not read (a split or sparse index): the brief does without it. */
export class UnsupportedIndex extends Error {}

const EXTENDED = 0x4000
const SKIP_WORKTREE = 0x4000
const INTENT_TO_ADD = 0x2000
// PATH_MAX: no file a name this long could be checked out.
const MAX_PATH_BYTES = 4096

/**
 * Parses `.git/index` (versions 2, 3 and 4) as data: the entries with the stat data git took
 * when it last looked at each file. Extensions are skipped (the cache tree too: index-trees.ts
 * computes the same ids rather than trust ones an agent could write), except that a split index
 * (`link`) or a sparse one (`sdir`), whose entries are not all here, is refused. The trailing
 * checksum is not verified: a corrupt index gives a wrong brief, never a read outside the buffer.
 */
export function parseIndex(data: Buffer, hashBytes: number): GitIndex {
  if (data.length < 12 || data.toString('latin1', 0, 4) !== 'DIRC') {
    throw new UnsupportedIndex('not an index')
  }
  const version = data.readUInt32BE(4)
  if (version < 2 || version > 4) throw new UnsupportedIndex(`index version ${version}`)
  const count = data.readUInt32BE(8)
  const end = data.length - hashBytes
  const entries: IndexEntry[] = []
  let pos = 12
  let previous = ''
  for (let i = 0; i < count; i++) {
    const fixed = 40 + hashBytes + 2
    if (pos + fixed > end) throw new UnsupportedIndex('truncated index')
    const start = pos
    const u32 = (at: number) => data.readUInt32BE(start + at)
    const flags = data.readUInt16BE(pos + 40 + hashBytes)
    pos += fixed
    let extended = 0
    if (flags & EXTENDED) {
      if (version < 3 || pos + 2 > end) throw new UnsupportedIndex('bad extended flags')
      extended = data.readUInt16BE(pos)
      pos += 2
    }
    let path: string
    if (version === 4) {
      // The name is the previous one less `strip` trailing bytes, plus a NUL-terminated suffix.
      let c = data[pos++]!
      let strip = c & 0x7f
      while (c & 0x80) {
        c = data[pos++]!
        strip = ((strip + 1) << 7) | (c & 0x7f)
      }
      const nul = data.indexOf(0, pos)
      if (nul < 0 || nul >= end) throw new UnsupportedIndex('truncated name')
      const prefix = Buffer.from(previous, 'utf8')
      if (strip < 0 || strip > prefix.length) throw new UnsupportedIndex('bad name prefix')
      // Each name repeats its predecessor's prefix: unbounded, names could grow by the suffix
      // each entry, a few bytes of index costing memory quadratic in its size.
      if (prefix.length - strip + (nul - pos) > MAX_PATH_BYTES) {
        throw new UnsupportedIndex('name too long')
      }
      path = Buffer.concat([
        prefix.subarray(0, prefix.length - strip),
        data.subarray(pos, nul),
      ]).toString('utf8')
      pos = nul + 1
    } else {
      const nul = data.indexOf(0, pos)
      if (nul < 0 || nul >= end) throw new UnsupportedIndex('truncated name')
      path = data.toString('utf8', pos, nul)
      // Entries are padded with 1–8 NULs to a multiple of eight bytes.
      pos = start + ((nul - start + 8) & ~7)
    }
    previous = path
    entries.push({
      path,
      mode: u32(24),
      oid: data.toString('hex', start + 40, start + 40 + hashBytes),
      oidBytes: data.subarray(start + 40, start + 40 + hashBytes),
      stage: (flags >> 12) & 3,
      ctimeSec: u32(0),
      mtimeSec: u32(8),
      ino: u32(20),
      uid: u32(28),
      gid: u32(32),
      size: u32(36),
      skipWorktree: (extended & SKIP_WORKTREE) !== 0,
      intentToAdd: (extended & INTENT_TO_ADD) !== 0,
    })
  }

  while (pos + 8 <= end) {
    const signature = data.toString('latin1', pos, pos + 4)
    if (signature === 'link' || signature === 'sdir') {
      throw new UnsupportedIndex(`index extension ${signature}`)
    }
    pos += 8 + data.readUInt32BE(pos + 4)
  }
  return { entries }
}
