import { constants, type Dirent } from 'node:fs'
import { lstat, open, readdir, readlink, realpath, stat, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { DOC_MAX_CHARS } from '../../db/doc-enums.ts'
import type { ImportedFile } from '../../runtime/contracts/docs.ts'
import { isStorable } from '../../runtime/contracts/storable-text.ts'
import { AppError } from '../../runtime/errors.ts'
import { within } from '../workspaces/containment.ts'
import { PinnedEscape, readPinned } from '../workspaces/pinned-io.ts'

export const DocImportRefused = AppError.define(
  'DOC_IMPORT_REFUSED',
  400,
  'the workspace documentation could not be imported',
)

/** Beyond these a repository's docs are not documentation this import is for. */
export const IMPORT_LIMITS = { files: 500, totalBytes: 20 * 1024 * 1024 }
const MARKDOWN = /\.(md|markdown)$/i
// Folders that are never the project's own documentation.
const SKIPPED = new Set(['.git', 'node_modules', '.venv', 'vendor', 'dist', 'build'])
const LEADS_OUT = 'a link that leads out of the repository'
const { O_RDONLY, O_DIRECTORY, O_NONBLOCK } = constants

/**
 * The Markdown files a workspace import stores: `README.md` at the repository root and every
 * `*.md` under `docs/`. Every file is read through the pinned reader, so a link (or a link swapped
 * in during the walk) that leads out of the repository is refused, never followed; a link to a
 * directory is not walked (`docs` itself may be a link that stays inside). Any refusal (a link
 * out, a file over the size bound, text that is not UTF-8 Markdown, too many files) names the
 * file by its path in the repository, never what lies past a link out, and refuses the whole
 * import: the caller stores nothing of it.
 */
export async function readWorkspaceMarkdown(repository: string): Promise<ImportedFile[]> {
  const root = await realpath(repository)
  const paths: string[] = []
  const readme = await lstat(join(root, 'README.md')).catch(() => undefined)
  if (readme && !readme.isDirectory()) paths.push('README.md')
  await walk(root, 'docs', paths)
  if (paths.length > IMPORT_LIMITS.files) {
    throw refuse('docs', `${paths.length} Markdown files, over the limit of ${IMPORT_LIMITS.files}`)
  }
  const files: ImportedFile[] = []
  let total = 0
  for (const path of paths.sort()) {
    const body = await readOne(root, path)
    total += body.length
    if (total > IMPORT_LIMITS.totalBytes) {
      throw refuse(path, `the import passes ${IMPORT_LIMITS.totalBytes} bytes in all`)
    }
    files.push({ path, body })
  }
  return files
}

async function walk(root: string, dir: string, into: string[]): Promise<void> {
  const entries = await listInside(root, dir)
  for (const entry of entries) {
    const path = `${dir}/${entry.name}`
    if (entry.isDirectory()) {
      if (!SKIPPED.has(entry.name)) await walk(root, path, into)
    } else if (MARKDOWN.test(entry.name) && (entry.isFile() || entry.isSymbolicLink())) {
      into.push(path)
    } else if (entry.isSymbolicLink()) {
      // A linked directory is not walked; one that leads out is said, not skipped in silence.
      const target = await realpath(join(root, path)).catch(() => undefined)
      if (target && !within(root, target)) throw refuse(path, LEADS_OUT)
    }
  }
}

/**
 * The entries of `dir`, listed only once the opened directory is proven inside the repository:
 * the kernel says where the descriptor really is (/proc/self/fd/N), and the listing is read
 * through that descriptor, so neither `docs` being a link out nor a directory swapped for one
 * mid-walk lists a folder outside. A refusal names only the path as configured, never the
 * target or anything in it.
 */
async function listInside(root: string, dir: string): Promise<Dirent[]> {
  let handle: FileHandle
  try {
    handle = await open(join(root, dir), O_RDONLY | O_DIRECTORY | O_NONBLOCK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if ((code === 'ENOENT' || code === 'ENOTDIR') && dir === 'docs') return []
    throw refuse(dir, `not a readable directory (${code ?? 'unknown error'})`)
  }
  try {
    const where = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined)
    if (where === undefined || !within(root, where)) throw refuse(dir, LEADS_OUT)
    return await readdir(`/proc/self/fd/${handle.fd}`, { withFileTypes: true })
  } finally {
    await handle.close()
  }
}

async function readOne(root: string, path: string): Promise<string> {
  // Sized before it is read, so a huge file is refused without being loaded; sized only where it
  // really lies inside, so a link out is refused by the pinned read without its size being told.
  const real = await realpath(join(root, path)).catch(() => undefined)
  const inside = real !== undefined && within(root, real)
  const size = inside ? ((await stat(real).catch(() => undefined))?.size ?? 0) : 0
  if (size > DOC_MAX_CHARS * 4) {
    throw refuse(path, `${size} bytes, over the bound of ${DOC_MAX_CHARS} characters`)
  }
  let bytes: Buffer
  try {
    bytes = await readPinned(root, join(root, path))
  } catch (error) {
    if (error instanceof PinnedEscape) throw refuse(path, LEADS_OUT)
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw refuse(path, 'a link to nothing')
    throw refuse(path, `not a readable regular file (${code ?? (error as Error).message})`)
  }
  if (bytes.length > DOC_MAX_CHARS * 4) {
    throw refuse(path, `${bytes.length} bytes, over the bound of ${DOC_MAX_CHARS} characters`)
  }
  let body: string
  try {
    body = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw refuse(path, 'not UTF-8 text')
  }
  if ([...body].length > DOC_MAX_CHARS) {
    throw refuse(path, `over the bound of ${DOC_MAX_CHARS} characters`)
  }
  if (!isStorable(body))
    throw refuse(path, 'holds a NUL or an unpaired surrogate: not Markdown text')
  if (!body.trim()) throw refuse(path, 'empty')
  return body
}

const refuse = (path: string, why: string) =>
  new DocImportRefused({ path }, { message: `${path}: ${why}; nothing was imported` })
