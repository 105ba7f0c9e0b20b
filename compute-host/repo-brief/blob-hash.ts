import { closeSync, readSync } from 'node:fs'
import { createHash } from 'node:crypto'
import type { LineEndings } from './git-attributes.ts'
import { toBlobContent } from './line-endings.ts'
import type { Pace } from './pacer.ts'
import { readAt, type RepositoryFiles } from './repository-files.ts'

const CHUNK = 1024 * 1024
// A file whose line endings may need converting is read whole; past this it is hashed as is.
const MAX_CONVERTED_BYTES = 64 * 1024 * 1024

/**
 * The object id git would give a work-tree file, computed with node:crypto: `blob <size>\0`
 * and the content, line endings converted as its attributes say. Read a megabyte at a time
 * through the repository's file access (never through a link), pacing between chunks, so a
 * huge file costs time the brief's deadline bounds and a cancelled brief stops mid-file.
 * Undefined when the file changed size while it was read.
 */
export async function hashFile(
  files: RepositoryFiles,
  path: string,
  algorithm: 'sha1' | 'sha256',
  lineEndings: LineEndings,
  pace: Pace,
): Promise<string | undefined> {
  const { fd, size } = files.open(path)
  try {
    if (lineEndings !== 'as-is' && size <= MAX_CONVERTED_BYTES) {
      const content = readAt(fd, 0, size)
      if (content.length !== size) return undefined
      return blobId(algorithm, toBlobContent(content, lineEndings))
    }
    const hash = createHash(algorithm).update(`blob ${size}\0`)
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(size, 1)))
    let total = 0
    for (;;) {
      const read = readSync(fd, chunk, 0, chunk.length, total)
      if (read === 0) break
      hash.update(chunk.subarray(0, read))
      total += read
      if (total > size) return undefined
      if (pace.due()) await pace.rest()
    }
    return total === size ? hash.digest('hex') : undefined
  } finally {
    closeSync(fd)
  }
}

/** The object id of a blob holding `content` (a link's target, a converted file). */
export function blobId(algorithm: 'sha1' | 'sha256', content: Buffer): string {
  return createHash(algorithm).update(`blob ${content.length}\0`).update(content).digest('hex')
}
