import { lstat, readdir, realpath, stat } from 'node:fs/promises'
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

/**
 * The Markdown files a workspace import stores: `README.md` at the repository root and every
 * `*.md` under `docs/`. Every file is read through the pinned reader, so a link (or a link swapped
 * in during the walk) that leads out of the repository is refused, never followed; a link to a
 * directory is not walked. Any refusal (a link out, a file over the size bound, text that is not
 * UTF-8 Markdown, too many files) names the file and refuses the whole import: the caller stores
 * nothing of it.
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
  const entries = await readdir(join(root, dir), { withFileTypes: true }).catch((error) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && dir === 'docs') return []
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR' && dir === 'docs') return []
    throw error
  })
  for (const entry of entries) {
    const path = `${dir}/${entry.name}`
    if (entry.isDirectory()) {
      if (!SKIPPED.has(entry.name)) await walk(root, path, into)
    } else if (MARKDOWN.test(entry.name) && (entry.isFile() || entry.isSymbolicLink())) {
      into.push(path)
    } else if (entry.isSymbolicLink()) {
      // A linked directory is not walked; one that leads out is said, not skipped in silence.
      const target = await realpath(join(root, path)).catch(() => undefined)
      if (target && !within(root, target))
        throw refuse(path, 'a link that leads out of the repository')
    }
  }
}

async function readOne(root: string, path: string): Promise<string> {
  // Sized before it is read, so a huge file is refused without being loaded.
  const size = (await stat(join(root, path)).catch(() => undefined))?.size ?? 0
  if (size > DOC_MAX_CHARS * 4) {
    throw refuse(path, `${size} bytes, over the bound of ${DOC_MAX_CHARS} characters`)
  }
  let bytes: Buffer
  try {
    bytes = await readPinned(root, join(root, path))
  } catch (error) {
    if (error instanceof PinnedEscape) throw refuse(path, 'a link that leads out of the repository')
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
