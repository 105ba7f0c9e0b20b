import { lstat } from 'node:fs/promises'
import { join } from 'node:path'
import { readPinned } from '../workspaces/pinned-io.ts'

/**
 * Reads repository sources for one brief without ever leaving the repository. A listed path is
 * not trusted as a location: git lists index entries whatever the work tree holds now, so
 * `src/x.ts` may name a file under a `src` that has since become a link to `/etc` or to another
 * repository. Every component is checked with lstat (each directory must be a real directory,
 * the file a regular file) before anything is opened, and the open itself goes through the
 * pinned reader, which refuses an object outside the repository should a link be swapped in
 * after the check. Directory verdicts are kept for the brief, so each directory costs one lstat.
 *
 * `root` must be canonical (realpath): the pinned reader compares it with where the kernel says
 * the opened file is.
 */
export function createSourceReader(root: string, maxBytes: number) {
  const directories = new Map<string, Promise<boolean>>()

  const realDirectory = (relative: string): Promise<boolean> => {
    let verdict = directories.get(relative)
    if (!verdict) {
      const parent = relative.includes('/') ? relative.slice(0, relative.lastIndexOf('/')) : ''
      verdict = (parent ? realDirectory(parent) : Promise.resolve(true)).then(
        async (parentOk) =>
          parentOk && !!(await lstat(join(root, relative)).catch(() => undefined))?.isDirectory(),
      )
      directories.set(relative, verdict)
    }
    return verdict
  }

  return {
    /** The file's text, or undefined when it is missing, not a plain file, too large or outside. */
    async read(path: string): Promise<string | undefined> {
      const parts = path.split('/')
      if (parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\0'))) return
      const dir = parts.slice(0, -1).join('/')
      if (dir && !(await realDirectory(dir))) return
      const full = join(root, path)
      const info = await lstat(full).catch(() => undefined)
      if (!info?.isFile() || info.size > maxBytes) return
      const data = await readPinned(root, full).catch(() => undefined)
      // The file may have grown between the lstat and the read.
      if (!data || data.length > maxBytes) return
      return data.toString('utf8')
    },
  }
}
