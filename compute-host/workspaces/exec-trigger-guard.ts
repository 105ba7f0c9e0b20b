import { constants } from 'node:fs'
import { lstat, open, readdir, realpath } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { AppError } from '../../runtime/errors.ts'
import { gitConfigEntries } from '../repo-brief/git-config.ts'
import { within } from './containment.ts'

export const ExecTriggerWriteRefused = AppError.define(
  'EXEC_TRIGGER_WRITE_REFUSED',
  403,
  "popagent does not let agents write files that run code on the owner's machine later",
)

/**
 * Working-tree files that make git or the owner's tools run programs later, as the owner and
 * outside any sandbox, without the owner asking for that file to run (issue 14, hole 6). The line
 * is drawn there: source, tests, package.json scripts and Makefiles are code too, but the owner
 * runs them on purpose; these run on a git command or when the folder is opened. Each is matched
 * at any directory level: a nested repository has its own `.gitattributes` and `.gitmodules`,
 * direnv looks for `.envrc` from the current directory up, and an editor can open any folder.
 *
 * Left out on purpose: `.github/workflows/` (runs on GitHub's machines after a push, not on the
 * owner's, and fixing CI is ordinary agent work; the turn's diff shows it like any change),
 * `.vscode/launch.json` (runs only when the owner starts debugging), lefthook's and other hook
 * managers' configuration (many names; husky is covered through `core.hooksPath`).
 */
const TRIGGERS: readonly { names: readonly string[]; why: string }[] = [
  // The filter, diff and merge drivers it names (defined in the owner's git configuration) run
  // on checkout, add, diff and merge; it decides which of them run, on which files.
  { names: ['.gitattributes'], why: 'git runs the filter, diff and merge drivers it names' },
  // `git submodule update` (or a clone with --recurse-submodules) fetches and checks out
  // whatever it names, at paths it names: the way of CVE-2018-11235 and CVE-2024-32002.
  { names: ['.gitmodules'], why: 'git fetches and checks out the submodules it names' },
  { names: ['.envrc'], why: 'direnv runs it as a shell script when the folder is entered' },
  // Tasks with `"runOptions": { "runOn": "folderOpen" }` run when the folder is opened.
  { names: ['.vscode', 'tasks.json'], why: 'VS Code runs its tasks when the folder is opened' },
  // Interpreter, formatter and linter paths (python.defaultInterpreterPath, eslint.runtime,
  // typescript.tsdk …) start programs in a trusted folder as soon as it is opened.
  {
    names: ['.vscode', 'settings.json'],
    why: 'VS Code and its extensions start the programs it names when the folder is opened',
  },
  // `initializeCommand` runs on the host when the container is built; the folder holds the
  // Dockerfile and scripts the build runs.
  { names: ['.devcontainer'], why: 'a dev container build runs its commands on the host' },
  { names: ['.devcontainer.json'], why: 'a dev container build runs its commands on the host' },
  // Run by the pre-commit hook (installed in .git/hooks, out of the agent's reach) on each commit.
  { names: ['.pre-commit-config.yaml'], why: 'pre-commit runs the hooks it lists on every commit' },
]

/**
 * Told to the model with the file tools' instructions where these files are refused, so a
 * refusal is not a surprise it tries to work around.
 */
export const EXEC_TRIGGER_NOTE =
  "Files that make git or the owner's tools run code later are the owner's to change: " +
  '.gitattributes and .gitmodules (any folder), the git hooks folder (core.hooksPath), .envrc, ' +
  '.vscode/tasks.json and settings.json, .devcontainer and .pre-commit-config.yaml. The file ' +
  'tools refuse them in this workspace, and a change to one made any other way is flagged to the ' +
  'owner for review. When one needs changing, say what and why in your answer instead.'

const HOOKS_WHY = 'git runs the hooks in it (core.hooksPath) on commits, checkouts and pushes'

/** What git runs from this repository's working tree: the hooks folders core.hooksPath names. */
export type ExecTriggers = { hooks: readonly string[][] }

/**
 * Why the repository-relative path `parts` is (or lies inside) a file that runs code later, or
 * undefined. Names are compared exactly: on a case-sensitive filesystem `.GITATTRIBUTES` is
 * another file, which no tool reads.
 */
export function execTriggerOf(
  parts: readonly string[],
  triggers: ExecTriggers,
): string | undefined {
  return matchTrigger(parts, triggers, (_, part, name) => part === name)
}

type SameName = (index: number, part: string, name: string) => boolean

function matchTrigger(parts: readonly string[], triggers: ExecTriggers, same: SameName) {
  const at = (start: number, names: readonly string[]) =>
    names.every((name, i) => start + i < parts.length && same(start + i, parts[start + i]!, name))
  for (const hooks of triggers.hooks) if (at(0, hooks)) return HOOKS_WHY
  for (const { names, why } of TRIGGERS) {
    // `.devcontainer` is a folder: anything at or below it; the others are files.
    const folder = names.length === 1 && names[0] === '.devcontainer'
    for (let start = 0; start + names.length <= parts.length; start++) {
      const last = start + names.length === parts.length
      if ((last || folder) && at(start, names)) return why
    }
  }
  return undefined
}

/**
 * The same question for a path as the filesystem compares names: where a directory folds case
 * (an ext4 casefold directory, a vfat or CIFS mount), `.GitAttributes` in it *is*
 * `.gitattributes`. Directories are probed only when the path matches in lower case alone, so
 * an ordinary write costs no extra system call, and a case-sensitive one refuses no variant.
 */
export async function execTriggerAt(
  root: string,
  absolutePath: string,
  triggers: ExecTriggers,
): Promise<string | undefined> {
  const rel = relative(root, absolutePath)
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return undefined
  const parts = rel.split(sep)
  const exact = execTriggerOf(parts, triggers)
  if (exact) return exact
  const sameFolded = (part: string, name: string) => part.toLowerCase() === name.toLowerCase()
  if (!matchTrigger(parts, triggers, (_, part, name) => sameFolded(part, name))) return undefined
  // Each name is looked up in its parent directory: that directory decides whether case counts.
  const folding = await Promise.all(
    parts.map((_, i) => foldsCase(join(root, ...parts.slice(0, i)))),
  )
  return matchTrigger(parts, triggers, (i, part, name) =>
    folding[i] ? sameFolded(part, name) : part === name,
  )
}

/**
 * Whether names in `dir` are looked up without regard to case: one of its entries is found again
 * under its name in the other case (same inode). An empty one is judged by its own name in its
 * parent, a missing one as its parent (ext4 casefolding is inherited by new subdirectories);
 * with neither, it counts as case-sensitive.
 */
async function foldsCase(dir: string): Promise<boolean> {
  const names = await readdir(dir).catch(() => undefined)
  // A directory still to be created will fold as the one it is created in.
  if (names === undefined) return dirname(dir) !== dir && foldsCase(dirname(dir))
  const probe = (parent: string, name: string) =>
    Promise.all([lstat(join(parent, name)), lstat(join(parent, swapCase(name)))]).then(
      ([a, b]) => a.ino === b.ino && a.dev === b.dev,
      () => false,
    )
  const named = names.find((n) => swapCase(n) !== n)
  if (named) return probe(dir, named)
  const parent = dirname(dir)
  const own = dir.slice(parent.length + 1)
  return parent !== dir && swapCase(own) !== own ? probe(parent, own) : false
}

const swapCase = (name: string) =>
  [...name].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('')

/**
 * The repository's hooks folders, from `core.hooksPath` in its own git configuration, read as
 * data (no git is run): `.git/config`, or for a worktree or submodule (`.git` a file naming the
 * git directory) the common directory's `config` and the worktree's `config.worktree`. Global
 * configuration and `include` files are not read. A relative value is relative to the working
 * tree's root, where git runs hooks; a folder outside the repository is no concern of the file
 * tools, which cannot write there. A folder that is a link counts where it leads too. husky 9 points core.hooksPath at `.husky/_`, whose generated
 * scripts run the owner's `.husky/<hook>`: the folder above a hooks folder named `_` counts too.
 */
export async function readExecTriggers(root: string): Promise<ExecTriggers> {
  let hooksPath: string | undefined
  for (const text of await gitConfigTexts(root)) {
    for (const [key, value] of gitConfigEntries(text)) {
      if (key === 'core.hookspath') hooksPath = value
    }
  }
  if (!hooksPath) return { hooks: [] }
  const home = hooksPath === '~' || hooksPath.startsWith('~/')
  const absolute = home ? join(homedir(), hooksPath.slice(1)) : resolve(root, hooksPath)
  // Where git finds the hooks, as named and (a link such as `.husky` → `tools/hooks`) as it is.
  const real = await realpath(absolute).catch(() => absolute)
  const hooks: string[][] = []
  for (const folder of new Set([absolute, real])) {
    if (!within(root, folder) || folder === root) continue
    const parts = relative(root, folder).split(sep)
    hooks.push(parts)
    if (parts.length > 1 && parts.at(-1) === '_') hooks.push(parts.slice(0, -1))
  }
  return { hooks }
}

async function gitConfigTexts(root: string): Promise<string[]> {
  const dotGit = join(root, '.git')
  const seen = await lstat(dotGit).catch(() => undefined)
  if (!seen) return []
  let gitDir = dotGit
  if (!seen.isDirectory()) {
    const named = /^gitdir:\s*(.+?)\s*$/m.exec((await smallText(dotGit)) ?? '')
    if (!named) return []
    gitDir = resolve(root, named[1]!)
  }
  const common = await smallText(join(gitDir, 'commondir'))
  const commonDir = common ? resolve(gitDir, common.trim()) : gitDir
  const texts = [
    await smallText(join(commonDir, 'config')),
    await smallText(join(gitDir, 'config.worktree')),
  ]
  return texts.filter((t) => t !== undefined)
}

const MAX_CONFIG_BYTES = 256 * 1024

/**
 * A small regular file's text, or undefined. Opened without blocking and checked to be a regular
 * file: a fifo planted where a config is looked for must not hold the write that asked.
 */
async function smallText(path: string): Promise<string | undefined> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => undefined)
  if (!handle) return undefined
  try {
    const stats = await handle.stat()
    if (!stats.isFile() || stats.size > MAX_CONFIG_BYTES) return undefined
    return (await handle.readFile()).toString('utf8')
  } catch {
    return undefined
  } finally {
    await handle.close()
  }
}

/**
 * Throws ExecTriggerWriteRefused when `absolutePath` (inside `root`) is one of the files above.
 * Callers apply it where they apply refuseGitWrite: to the path the agent gave, and to where a
 * write would really land after links.
 */
export async function refuseExecTriggerWrite(
  root: string,
  absolutePath: string,
  given: string,
  triggers: ExecTriggers,
): Promise<void> {
  const why = await execTriggerAt(root, absolutePath, triggers)
  if (why === undefined) return
  throw new ExecTriggerWriteRefused(
    { path: given },
    {
      message:
        `popagent does not let agents write ${JSON.stringify(given)}: ${why}, on the owner's ` +
        'machine, later. Leave it as it is and tell the owner what should change and why; they ' +
        'can make the change, or allow agents to edit such files in this workspace (the ' +
        'Workspaces page, or PATCH /api/workspaces/:id with { "allowExecTriggerWrites": true }).',
    },
  )
}
