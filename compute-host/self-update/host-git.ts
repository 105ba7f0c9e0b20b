import { execFile } from 'node:child_process'

const GIT_TIMEOUT_MS = 60_000
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024

/**
 * popagent's own git, for self-update only. The repositories it touches hold configuration and
 * attributes an agent or a stranger may have written, so nothing in them gets to run:
 *
 * - no shell (`execFile`); arguments model text never reaches except as checked paths after `--`;
 * - a fixed environment: none of the host's variables (model keys, `GIT_DIR`, `GIT_SSH`…) reach
 *   git or anything it starts; no system or global configuration, no prompts, no replace refs;
 * - hooks pointed at `/dev/null` (nothing can be found there), fsmonitor, signing and pagers off;
 * - every filter driver the repository configures replaced by nothing (`neutralFilters`), so a
 *   `clean` or `process` command in `.git/config` never runs when git hashes a file;
 * - only the `file` transport, so even a configured URL cannot reach the network;
 * - `GIT_OPTIONAL_LOCKS=0`: reading status never rewrites the owner's index;
 * - no git started inside a submodule: such a git reads the submodule's own configuration and
 *   attributes, which the agent's shell can write, and the `-c` settings here cannot name its
 *   filters in advance. Nothing recurses (`submodule.recurse`, no summaries), status is read
 *   with `--ignore-submodules=dirty` (checkout-state.ts) and staging leaves submodule paths out
 *   (inspect-change.ts). test/self-update-submodule-traps.test.ts plants each kind of trap.
 */
export type GitOptions = {
  /** Working directory (a work tree, or any directory when `env.GIT_DIR` is given). */
  cwd: string
  /** Extra variables: GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, author and committer. */
  env?: Readonly<Record<string, string>>
  input?: string | Buffer
  /** Extra `-c` settings, as from `neutralFilters`. */
  config?: readonly string[]
}

const FIXED_ENV = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  HOME: '/nonexistent',
  LANG: 'C',
  LC_ALL: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_ATTR_NOSYSTEM: '1',
  GIT_TERMINAL_PROMPT: '0',
  GIT_OPTIONAL_LOCKS: '0',
  GIT_NO_REPLACE_OBJECTS: '1',
  GIT_PAGER: 'cat',
  GIT_ASKPASS: '/bin/false',
  GIT_EDITOR: '/bin/false',
}

const FIXED_CONFIG = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.pager=cat',
  'core.sshCommand=/bin/false',
  'commit.gpgSign=false',
  'tag.gpgSign=false',
  'protocol.allow=never',
  'protocol.file.allow=always',
  'advice.detachedHead=false',
  'submodule.recurse=false',
  'status.submoduleSummary=false',
  'diff.submodule=short',
  'init.templateDir=',
]

/** The environment git runs with: the fixed one plus what the caller names, nothing inherited. */
export function gitEnvironment(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  return { ...FIXED_ENV, ...extra }
}

export function hostGit(args: readonly string[], options: GitOptions): Promise<Buffer> {
  const config = [...FIXED_CONFIG, ...(options.config ?? [])].flatMap((c) => ['-c', c])
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      [...config, ...args],
      {
        cwd: options.cwd,
        env: gitEnvironment(options.env),
        encoding: 'buffer',
        timeout: GIT_TIMEOUT_MS,
        maxBuffer: MAX_OUTPUT_BYTES,
      },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout)
        const detail = stderr.toString('utf8').trim().slice(0, 2_000)
        const exitCode = typeof error.code === 'number' ? error.code : null
        reject(new GitFailed(args, exitCode, detail || error.message, { cause: error }))
      },
    )
    // A git that exits without reading its input closes the pipe; its exit status tells why.
    child.stdin?.on('error', () => {})
    if (options.input === undefined) child.stdin?.end()
    else child.stdin?.end(options.input)
  })
}

export async function hostGitText(args: readonly string[], options: GitOptions): Promise<string> {
  return (await hostGit(args, options)).toString('utf8')
}

/**
 * `-c` settings that turn off every filter driver the repository's configuration names. An empty
 * command is no command to git, and `-c` outranks the repository's own files.
 */
export async function neutralFilters(options: GitOptions): Promise<string[]> {
  const names = await hostGitText(
    ['config', '--null', '--name-only', '--get-regexp', '^filter\\.'],
    options,
  ).catch((error: unknown) => {
    // Exit 1: no such setting.
    if (error instanceof GitFailed && error.exitCode === 1) return ''
    throw error
  })
  const drivers = new Set(
    names
      .split('\0')
      .filter(Boolean)
      .map((name) => name.slice('filter.'.length, name.lastIndexOf('.'))),
  )
  return [...drivers].flatMap((driver) => [
    `filter.${driver}.clean=`,
    `filter.${driver}.smudge=`,
    `filter.${driver}.process=`,
    `filter.${driver}.required=false`,
  ])
}

export class GitFailed extends Error {
  readonly args: readonly string[]
  readonly exitCode: number | null
  readonly detail: string

  constructor(
    args: readonly string[],
    exitCode: number | null,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`git ${args[0] ?? ''} failed: ${detail}`, options)
    this.name = 'GitFailed'
    this.args = args
    this.exitCode = exitCode
    this.detail = detail
  }
}
