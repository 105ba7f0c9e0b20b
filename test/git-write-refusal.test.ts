/**
 * The file tools never write inside `.git` (issue 14, hole 4): whatever is planted there (a
 * `core.fsmonitor` in `.git/config`, a `.git/hooks/pre-commit`) runs as the owner on their next
 * git command. Every write-side operation is tried on `.git` paths at the root and in a nested
 * repository, in case and Windows/macOS spellings git treats as `.git`, and through links and a
 * hard link; git's files stay byte for byte as they were, and reading them stays allowed.
 */
import assert from 'node:assert/strict'
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
import { isGitName } from '../compute-host/workspaces/git-guard.ts'
import { writePinned } from '../compute-host/workspaces/pinned-io.ts'

const CONFIG = '[core]\n\trepositoryformatversion = 0\n'
let dir: string
let repo: string

async function snapshot(path: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {}
  for (const entry of await readdir(path, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const full = join(entry.parentPath, entry.name)
    files[full.slice(path.length)] = await readFile(full, 'utf8')
  }
  return files
}

before(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'popagent-gitguard-')))
  repo = join(dir, 'repo')
  await mkdir(join(repo, '.git', 'hooks'), { recursive: true })
  await mkdir(join(repo, 'sub', '.git'), { recursive: true })
  await mkdir(join(repo, 'src'))
  await writeFile(join(repo, '.git', 'config'), CONFIG)
  await writeFile(join(repo, 'sub', '.git', 'config'), CONFIG)
  await writeFile(join(repo, '.git', 'hooks', 'pre-commit.sample'), '#!/bin/sh\n')
  await writeFile(join(repo, 'src', 'a.ts'), 'export {}\n')
  // Links the agent could make with its shell: to the git directory and to its config.
  await symlink(join(repo, '.git'), join(repo, 'git-dir-link'))
  await symlink('.git/config', join(repo, 'config-link'))
  await symlink('../.git/hooks/pre-commit.sample', join(repo, 'src', 'hook-link'))
  await link(join(repo, '.git', 'config'), join(repo, 'config-hardlink'))
})
after(() => rm(dir, { recursive: true, force: true }))

const GIT_PATHS = [
  '.git',
  '.git/config',
  '.git/hooks/pre-commit',
  '.git/new-dir/x',
  'sub/.git/config',
  'sub/.git/hooks/post-checkout',
  '.GIT/config',
  '.Git/hooks/pre-commit',
  '.git./config',
  '.git /config',
  'git~1/config',
  '.g\u200cit/config',
  'src/../.git/config',
  './.git/info/attributes',
  'git-dir-link/config',
  'git-dir-link/hooks/pre-commit',
  'config-link',
  'src/hook-link',
  'config-hardlink',
]

test('every write-side operation on a .git path is refused, and git’s files stay as they were', async () => {
  const fs = new ContainedFilesystem({ root: repo })
  const gitBefore = await snapshot(join(repo, '.git'))
  const subBefore = await snapshot(join(repo, 'sub', '.git'))
  const ops: [string, (p: string) => Promise<unknown>][] = [
    ['writeFile', (p) => fs.writeFile(p, '[core]\n\tfsmonitor = "touch /tmp/pwned"\n')],
    ['writeFile-create', (p) => fs.writeFile(p, '#!/bin/sh\n', { overwrite: false })],
    ['appendFile', (p) => fs.appendFile(p, '\n[alias]\n\tst = !sh\n')],
    ['mkdir', (p) => fs.mkdir(p, { recursive: true })],
    ['deleteFile', (p) => fs.deleteFile(p)],
    ['copyFile', (p) => fs.copyFile('src/a.ts', p)],
    ['moveFile', (p) => fs.moveFile('src/a.ts', p)],
  ]
  const refusedBy = new Map<string, string>()
  for (const path of GIT_PATHS) {
    for (const [name, op] of ops) {
      const error = await op(path).then(
        () => undefined,
        (e: Error) => e,
      )
      assert.ok(error, `${name}(${JSON.stringify(path)}) went through`)
      refusedBy.set(`${name} ${path}`, error.message)
    }
  }
  // Refused for the .git rule (a hard link for its own reason), never by accident.
  for (const [call, message] of refusedBy) {
    const expected = call.endsWith('config-hardlink')
      ? /hard links|inside \.git/
      : /popagent does not let agents write inside \.git/
    assert.match(message, expected, call)
  }
  assert.deepEqual(await snapshot(join(repo, '.git')), gitBefore)
  assert.deepEqual(await snapshot(join(repo, 'sub', '.git')), subBefore)
  assert.equal(await readFile(join(repo, 'src', 'a.ts'), 'utf8'), 'export {}\n')
})

test('the pinned write refuses .git by where the opened directory or file really is', async () => {
  // Called below the filesystem's own path checks, as after a link swapped in behind them.
  const gitBefore = await snapshot(join(repo, '.git'))
  const data = Buffer.from('[core]\n\tpager = "sh -c pwned"\n')
  for (const [path, mode] of [
    ['git-dir-link/config', 'replace'],
    ['git-dir-link/hooks/pre-commit', 'create'],
    ['git-dir-link/hooks/new/x', 'replace'],
    ['config-link', 'append'],
    ['src/hook-link', 'replace'],
  ] as const) {
    await assert.rejects(
      writePinned(repo, join(repo, path), data, { createParents: true, mode }),
      /popagent does not let agents write inside \.git/,
      path,
    )
  }
  await assert.rejects(
    writePinned(repo, join(repo, 'config-hardlink'), data, {
      createParents: false,
      mode: 'replace',
    }),
    /2 names \(hard links\)/,
  )
  assert.deepEqual(await snapshot(join(repo, '.git')), gitBefore)
  assert.equal(existsSync(join(repo, '.git', 'hooks', 'new')), false, 'a directory was made')
})

test('reading .git stays allowed, and names that only look like .git are written normally', async () => {
  const fs = new ContainedFilesystem({ root: repo })
  assert.equal(await fs.readFile('.git/config', { encoding: 'utf-8' }), CONFIG)
  assert.equal(await fs.readFile('config-link', { encoding: 'utf-8' }), CONFIG)
  assert.ok((await fs.readdir('.git')).some((e) => e.name === 'config'))
  for (const path of ['.gitignore', '.github/workflows/ci.yml', 'src/.gitkeep', 'docs/git/x.md']) {
    await fs.writeFile(path, 'ok\n')
    assert.equal(await readFile(join(repo, path), 'utf8'), 'ok\n')
  }
})

test('git’s own spellings of .git are recognised', () => {
  for (const name of [
    '.git',
    '.GIT',
    '.gIt',
    '.git.',
    '.git. .',
    'GIT~1',
    '.g\u200dit',
    '\ufeff.git',
  ]) {
    assert.equal(isGitName(name), true, JSON.stringify(name))
  }
  for (const name of ['.gitignore', '.github', 'git', '.gi', '..git', '.git~1', 'x.git']) {
    assert.equal(isGitName(name), false, JSON.stringify(name))
  }
})
