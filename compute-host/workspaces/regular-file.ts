import type { Stats } from 'node:fs'
import { AppError } from '../../runtime/errors.ts'

export const NotRegularFile = AppError.define(
  'NOT_A_REGULAR_FILE',
  400,
  'the file tools read and write regular files only',
)

/**
 * What a file tool met instead of a regular file, in words for the model and the person reading
 * the run. A fifo is the case that matters: the agent can make one with its shell (`mkfifo`),
 * and a blocking open of it waits for a writer that never comes.
 */
export function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a fifo (named pipe)'
  if (stats.isSocket()) return 'a socket'
  if (stats.isCharacterDevice()) return 'a character device'
  if (stats.isBlockDevice()) return 'a block device'
  if (stats.isDirectory()) return 'a directory'
  if (stats.isSymbolicLink()) return 'a symbolic link'
  return 'not a regular file'
}

export function notRegular(path: string, kind: string) {
  return new NotRegularFile(
    { path, kind },
    {
      message: `the file tools read and write regular files only: ${JSON.stringify(path)} is ${kind}`,
    },
  )
}

export const HardLinkedFile = AppError.define(
  'HARD_LINKED_FILE',
  400,
  'the file tools do not write a file that has other names',
)

/**
 * A write goes to the object, not the name: a file with several names (hard links) may also be
 * `.git/config` or a file outside the repository, where no check of this name reaches.
 */
export function hardLinked(path: string, links: number) {
  return new HardLinkedFile(
    { path, links },
    {
      message:
        `the file tools do not write a file that has ${links} names (hard links), since another ` +
        `name may lie inside .git or outside the repository: ${JSON.stringify(path)}`,
    },
  )
}
