import {
  DirectoryNotFoundError,
  FileExistsError,
  FileNotFoundError,
  IsDirectoryError,
  LocalFilesystem,
  StaleFileError,
  WorkspaceReadOnlyError,
} from '@mastra/core/workspace'
import { lstat, realpath, stat } from 'node:fs/promises'
import { basename, dirname, isAbsolute, relative, resolve } from 'node:path'
import { AppError } from '../../runtime/errors.ts'
import { within } from './containment.ts'
import { PinnedEscape, readPinned, writePinned, type PinnedWrite } from './pinned-io.ts'

export const PathEscapesRepository = AppError.define(
  'PATH_ESCAPES_REPOSITORY',
  400,
  'the path leads outside the repository',
)

type WriteArgs = Parameters<LocalFilesystem['writeFile']>
type ReadOptions = Parameters<LocalFilesystem['readFile']>[1]
type CopyOptions = Parameters<LocalFilesystem['copyFile']>[2]

/**
 * Mastra's LocalFilesystem with its write-side gap closed. The base class checks containment by
 * resolving links of paths that exist, but lets a path whose target does not exist yet through:
 * writing `link/new.txt` where `link` points outside the repository, or writing through a
 * dangling link, creates files outside (probed on @mastra/core 1.71.0; docs/notes/mastra-workspace.md).
 *
 * Before every mutation this adapter resolves the nearest existing ancestor of the target with
 * realpath and refuses anything that lands outside the repository, and refuses a target that is
 * itself a link leading outside (dangling links included).
 *
 * A check on a path can be outrun by a link swapped in right after it. File contents, the part
 * the agent tools touch (read, search, write, edit), therefore go through pinned-io.ts: what was
 * opened is proven inside before a byte moves. Directory operations (mkdir, delete, copy, move),
 * which no agent tool offers, keep the check-then-act window.
 */
export class ContainedFilesystem extends LocalFilesystem {
  readonly #root: string

  /** `root` must already be canonical (realpath) and inside the workspace root. */
  constructor(options: { root: string; readOnly?: boolean }) {
    super({ basePath: options.root, contained: true, ...(options.readOnly && { readOnly: true }) })
    this.#root = options.root
  }

  override async readFile(path: string, options?: ReadOptions): Promise<string | Buffer> {
    // The base class's stat applies its own checks and error types (missing, outside).
    if ((await this.stat(path)).type === 'directory') throw new IsDirectoryError(path)
    const data = await readPinned(this.#root, this.#absolute(path)).catch((error) => {
      throw this.#mapped(error, path)
    })
    return options?.encoding ? data.toString(options.encoding) : data
  }

  override async writeFile(...[path, content, options]: WriteArgs): Promise<void> {
    await this.#assertWritable(path)
    if (options?.expectedMtime) {
      const current = await stat(this.#absolute(path)).catch(() => undefined)
      if (current && current.mtime.getTime() !== options.expectedMtime.getTime()) {
        throw new StaleFileError(path, options.expectedMtime, current.mtime)
      }
    }
    await this.#write(path, content, {
      createParents: options?.recursive !== false,
      mode: options?.overwrite === false ? 'create' : 'replace',
    })
  }

  override async appendFile(path: string, content: WriteArgs[1]): Promise<void> {
    await this.#assertWritable(path)
    await this.#write(path, content, { createParents: true, mode: 'append' })
  }

  override async deleteFile(path: string, options?: Parameters<LocalFilesystem['deleteFile']>[1]) {
    await this.#assertWritable(path)
    return super.deleteFile(path, options)
  }

  override async copyFile(src: string, dest: string, options?: CopyOptions): Promise<void> {
    await this.#assertWritable(src)
    await this.#assertWritable(dest)
    return super.copyFile(src, dest, options)
  }

  override async moveFile(src: string, dest: string, options?: CopyOptions): Promise<void> {
    await this.#assertWritable(src)
    await this.#assertWritable(dest)
    return super.moveFile(src, dest, options)
  }

  override async mkdir(path: string, options?: { recursive?: boolean }): Promise<void> {
    await this.#assertWritable(path)
    return super.mkdir(path, options)
  }

  override async rmdir(
    path: string,
    options?: Parameters<LocalFilesystem['rmdir']>[1],
  ): Promise<void> {
    await this.#assertWritable(path)
    return super.rmdir(path, options)
  }

  /**
   * The language server's project lookup walks up from a file with absolute paths, asking for
   * markers such as `tsconfig.json`; past the repository the base class throws and the LSP query
   * fails. Those marker probes outside the repository answer "absent"; every other path keeps
   * the base class's checks.
   */
  override async exists(path: string): Promise<boolean> {
    if (isAbsolute(path) && !within(this.#root, resolve(path)) && LSP_MARKERS.has(basename(path))) {
      return false
    }
    return super.exists(path)
  }

  async #write(path: string, content: WriteArgs[1], options: PinnedWrite): Promise<void> {
    const data = typeof content === 'string' ? Buffer.from(content) : Buffer.from(content)
    await writePinned(this.#root, this.#absolute(path), data, options).catch((error) => {
      throw this.#mapped(error, path, options)
    })
  }

  #absolute(path: string): string {
    return isAbsolute(path) ? resolve(path) : resolve(this.#root, path)
  }

  /** The base class's error types for what the pinned calls report as system errors. */
  #mapped(error: NodeJS.ErrnoException, path: string, write?: PinnedWrite): Error {
    if (error instanceof PinnedEscape) {
      return new PathEscapesRepository(
        { path },
        { message: `a path that leads outside the repository: ${JSON.stringify(path)}` },
      )
    }
    if (error.code === 'ENOENT') {
      return write ? new DirectoryNotFoundError(dirname(path)) : new FileNotFoundError(path)
    }
    if (error.code === 'EEXIST' && write?.mode === 'create') return new FileExistsError(path)
    if (error.code === 'EEXIST') {
      return new PathEscapesRepository(
        { path },
        { message: `a link to a file that does not exist: ${JSON.stringify(path)}` },
      )
    }
    if (error.code === 'EISDIR') return new IsDirectoryError(path)
    return error
  }

  async #assertWritable(input: string): Promise<void> {
    if (this.readOnly) throw new WorkspaceReadOnlyError('write')
    const refuse = (why: string) => {
      throw new PathEscapesRepository(
        { path: input },
        { message: `${why}: ${JSON.stringify(input)}` },
      )
    }
    if (typeof input !== 'string' || input.length === 0) refuse('an empty path')
    if (input.includes('\u0000')) refuse('a path with a NUL byte')
    const lexical = isAbsolute(input) ? resolve(input) : resolve(this.#root, input)
    if (!within(this.#root, lexical)) refuse('a path outside the repository')

    // The target itself, when it exists: a link must resolve inside (a dangling one never does).
    const own = await lstat(lexical).catch(() => undefined)
    if (own?.isSymbolicLink()) {
      const target = await realpath(lexical).catch(() => undefined)
      if (!target || !within(this.#root, target)) refuse('a link that leads outside the repository')
    }
    // The nearest existing ancestor decides where a new file would really be created.
    let ancestor = own ? lexical : dirname(lexical)
    for (;;) {
      const found = await lstat(ancestor).catch(() => undefined)
      if (found) break
      const parent = dirname(ancestor)
      if (parent === ancestor) refuse('a path with no existing parent')
      ancestor = parent
    }
    const real = await realpath(ancestor).catch(() => undefined)
    if (!real || !within(this.#root, real))
      refuse('a path whose directory leads outside the repository')
  }
}

const LSP_MARKERS = new Set([
  'tsconfig.json',
  'jsconfig.json',
  'package.json',
  'deno.json',
  '.git',
  'node_modules',
])
