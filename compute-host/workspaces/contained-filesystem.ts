import {
  DirectoryNotFoundError,
  FileExistsError,
  FileNotFoundError,
  IsDirectoryError,
  LocalFilesystem,
  StaleFileError,
  WorkspaceReadOnlyError,
} from '@mastra/core/workspace'
import type { Dirent } from 'node:fs'
import { lstat, readdir, realpath, stat } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path'
import { AppError } from '../../runtime/errors.ts'
import { within } from './containment.ts'
import { FILE_OPERATION_LIMIT_MS, withTimeBound } from './file-op-time-bound.ts'
import {
  EXEC_TRIGGER_NOTE,
  readExecTriggers,
  refuseExecTriggerWrite,
  type ExecTriggers,
} from './exec-trigger-guard.ts'
import { refuseGitWrite } from './git-guard.ts'
import { PinnedEscape, readPinned, writePinned, type PinnedWrite } from './pinned-io.ts'
import { hardLinked } from './regular-file.ts'

export const PathEscapesRepository = AppError.define(
  'PATH_ESCAPES_REPOSITORY',
  400,
  'the path leads outside the repository',
)

type WriteArgs = Parameters<LocalFilesystem['writeFile']>
type ReadOptions = Parameters<LocalFilesystem['readFile']>[1]
type CopyOptions = Parameters<LocalFilesystem['copyFile']>[2]
type ListOptions = Parameters<LocalFilesystem['readdir']>[1]
type FileEntry = Awaited<ReturnType<LocalFilesystem['readdir']>>[number]

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
 *
 * Three more rules (issue 14): every operation is raced against a time bound
 * (file-op-time-bound.ts), so a tool call always ends; reads and writes take regular files only
 * and never block on opening one (pinned-io.ts), and listings leave out fifos, sockets and
 * devices, so a search walking the repository never opens one; and nothing inside a `.git` is
 * written, created, moved or deleted (git-guard.ts). Reading `.git` stays allowed.
 *
 * Files that make git or the owner's tools run code later (`.gitattributes`, the hooks folder,
 * `.envrc` …: exec-trigger-guard.ts) are refused the same way, by name and where the write
 * really lands, unless the owner allowed it for the workspace (hole 6). That check is not
 * repeated on the pinned write: an agent able to swap a link in between holds a shell, which
 * writes these files directly, so what stands behind the shell is the turn's change list
 * flagging them, not this check.
 */
export class ContainedFilesystem extends LocalFilesystem {
  readonly #root: string
  readonly #limitMs: number
  readonly #allowExecTriggerWrites: boolean

  /** `root` must already be canonical (realpath) and inside the workspace root. */
  constructor(options: {
    root: string
    readOnly?: boolean
    operationLimitMs?: number
    /** The workspace's owner lets agents write files that run code later (off by default). */
    allowExecTriggerWrites?: boolean
  }) {
    // Said up front where the files that run code later are refused (exec-trigger-guard.ts).
    const refusesTriggers = !options.readOnly && options.allowExecTriggerWrites !== true
    super({
      basePath: options.root,
      contained: true,
      ...(options.readOnly && { readOnly: true }),
      ...(refusesTriggers && {
        instructions: ({ defaultInstructions }: { defaultInstructions: string }) =>
          `${defaultInstructions}\n${EXEC_TRIGGER_NOTE}`,
      }),
    })
    this.#root = options.root
    this.#limitMs = options.operationLimitMs ?? FILE_OPERATION_LIMIT_MS
    this.#allowExecTriggerWrites = options.allowExecTriggerWrites === true
  }

  override readFile(path: string, options?: ReadOptions): Promise<string | Buffer> {
    return this.#bounded('readFile', path, async () => {
      // The base class's stat applies its own checks and error types (missing, outside).
      if ((await this.stat(path)).type === 'directory') throw new IsDirectoryError(path)
      const data = await readPinned(this.#root, this.#absolute(path)).catch((error) => {
        throw this.#mapped(error, path)
      })
      return options?.encoding ? data.toString(options.encoding) : data
    })
  }

  override writeFile(...[path, content, options]: WriteArgs): Promise<void> {
    return this.#bounded('writeFile', path, async () => {
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
    })
  }

  override appendFile(path: string, content: WriteArgs[1]): Promise<void> {
    return this.#bounded('appendFile', path, async () => {
      await this.#assertWritable(path)
      await this.#write(path, content, { createParents: true, mode: 'append' })
    })
  }

  override deleteFile(path: string, options?: Parameters<LocalFilesystem['deleteFile']>[1]) {
    return this.#bounded('deleteFile', path, async () => {
      await this.#assertWritable(path)
      return super.deleteFile(path, options)
    })
  }

  override copyFile(src: string, dest: string, options?: CopyOptions): Promise<void> {
    return this.#bounded('copyFile', src, async () => {
      await this.#assertWritable(src)
      await this.#assertWritable(dest)
      return super.copyFile(src, dest, options)
    })
  }

  override moveFile(src: string, dest: string, options?: CopyOptions): Promise<void> {
    return this.#bounded('moveFile', src, async () => {
      await this.#assertWritable(src)
      await this.#assertWritable(dest)
      return super.moveFile(src, dest, options)
    })
  }

  override mkdir(path: string, options?: { recursive?: boolean }): Promise<void> {
    return this.#bounded('mkdir', path, async () => {
      await this.#assertWritable(path)
      return super.mkdir(path, options)
    })
  }

  override rmdir(path: string, options?: Parameters<LocalFilesystem['rmdir']>[1]): Promise<void> {
    return this.#bounded('rmdir', path, async () => {
      await this.#assertWritable(path)
      return super.rmdir(path, options)
    })
  }

  /**
   * The base class lists fifos, sockets and devices as files, so a search would open them. They
   * are left out here (links to them too): the model never needs one, and the listing is what
   * the search walks. A recursive listing calls this method for each subdirectory, so every
   * level is filtered; the entries of deeper levels arrive already filtered, named `dir/name`.
   */
  override readdir(path: string, options?: ListOptions): Promise<FileEntry[]> {
    return this.#bounded('readdir', path, async () => {
      const entries = await super.readdir(path, options)
      const special = await this.#specialNames(path)
      return entries.filter((entry) => entry.name.includes('/') || !special.has(entry.name))
    })
  }

  override stat(path: string): ReturnType<LocalFilesystem['stat']> {
    return this.#bounded('stat', path, () => super.stat(path))
  }

  override realpath(path: string): Promise<string> {
    return this.#bounded('realpath', path, () => super.realpath(path))
  }

  /**
   * The language server's project lookup walks up from a file with absolute paths, asking for
   * markers such as `tsconfig.json`; past the repository the base class throws and the LSP query
   * fails. Those marker probes outside the repository answer "absent"; every other path keeps
   * the base class's checks.
   */
  override exists(path: string): Promise<boolean> {
    if (isAbsolute(path) && !within(this.#root, resolve(path)) && LSP_MARKERS.has(basename(path))) {
      return Promise.resolve(false)
    }
    return this.#bounded('exists', path, () => super.exists(path))
  }

  #bounded<T>(what: string, path: string, operation: () => Promise<T>): Promise<T> {
    return withTimeBound(what, path, this.#limitMs, operation)
  }

  /** Names in the directory that are neither regular files, directories nor links to them. */
  async #specialNames(path: string): Promise<Set<string>> {
    const absolute = this.resolveAbsolutePath(path)
    const special = new Set<string>()
    if (!absolute) return special
    const entries: Dirent[] = await readdir(absolute, { withFileTypes: true }).catch(() => [])
    for (const entry of entries) {
      if (entry.isFile() || entry.isDirectory()) continue
      if (entry.isSymbolicLink()) {
        // stat follows the link without opening its target; a dangling link stays listed.
        const target = await stat(join(absolute, entry.name)).catch(() => undefined)
        if (!target || target.isFile() || target.isDirectory()) continue
      }
      special.add(entry.name)
    }
    return special
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
    refuseGitWrite(this.#root, lexical, input)
    // Read once per operation: the owner may change core.hooksPath at any time.
    let triggers: ExecTriggers | undefined
    const refuseTrigger = async (where: string) => {
      if (this.#allowExecTriggerWrites) return
      triggers ??= await readExecTriggers(this.#root)
      await refuseExecTriggerWrite(this.#root, where, input, triggers)
    }
    await refuseTrigger(lexical)

    // The target itself, when it exists: a link must resolve inside (a dangling one never does).
    const own = await lstat(lexical).catch(() => undefined)
    if (own?.isSymbolicLink()) {
      const target = await realpath(lexical).catch(() => undefined)
      if (!target || !within(this.#root, target)) refuse('a link that leads outside the repository')
      refuseGitWrite(this.#root, target!, input)
      await refuseTrigger(target!)
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
    // Where the write would really land: the ancestor's real path and the names still to create.
    const landing = join(real!, relative(ancestor, lexical))
    refuseGitWrite(this.#root, landing, input)
    await refuseTrigger(landing)
    // Copy and move write by name (not pinned): a second name of the file may be .git/config.
    if (own?.isFile() && own.nlink > 1) throw hardLinked(input, own.nlink)
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
