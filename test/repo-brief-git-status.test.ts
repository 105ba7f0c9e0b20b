/**
 * The brief's own git reader (compute-host/repo-brief/git-status.ts) against real git on the
 * same repositories: every listed file, every change code and HEAD must be what git says, for
 * each kind of change git reports and each rule that decides whether a path is shown.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import {
  chmod,
  mkdir,
  mkdtemp,
  realpath,
  rename,
  rm,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { readGitStatus } from '../compute-host/repo-brief/git-status.ts'
import { takeInventory } from '../compute-host/repo-brief/inventory.ts'
import { git, gitSays, makeRepository, readProbe } from './support/brief-fixtures.ts'

const write = async (repo: string, path: string, text: string | Buffer) => {
  await mkdir(dirname(join(repo, path)), { recursive: true })
  await writeFile(join(repo, path), text)
}
// Another mtime second, same content: git has to look at the content to know nothing changed.
const touch = (repo: string, path: string) =>
  utimes(join(repo, path), new Date(1_600_000_000_000), new Date(1_600_000_000_000))

/** The reader's answer, shaped as `gitSays`'s, after checking it is git's. */
async function assertAsGit(repo: string) {
  // The reader first: git is told not to write the index, but it goes second all the same.
  const mine = await readGitStatus(await realpath(repo), new AbortController().signal)
  assert.ok(mine, 'a repository')
  const ours = {
    files: mine.files,
    changes: [...mine.changes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    head: mine.head,
  }
  const theirs = gitSays(repo)
  assert.deepEqual(ours, theirs)
  return new Map(ours.changes)
}

describe('the brief’s git reader says what git says', () => {
  let dir: string
  before(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'popagent-git-status-')))
  })
  after(() => rm(dir, { recursive: true, force: true }))

  test('modified, added, deleted, staged, renamed, typechanged and untracked paths', async () => {
    const repo = await makeRepository(join(dir, 'changes'), {
      'src/grows.ts': 'a\n',
      'src/same-size.ts': 'one\n',
      'src/touched.ts': 'same\n',
      'src/deleted.ts': 'x\n',
      'src/old-name.ts': 'renamed in the index\n',
      'src/moved.ts': 'renamed in the work tree\n',
      'src/unstaged.ts': 'x\n',
      'src/removed.ts': 'x\n',
      'src/staged-then-reverted.ts': 'first\n',
      'run.sh': 'echo hi\n',
      'becomes-link.ts': 'x\n',
      'becomes-dir': 'x\n',
    })
    await symlink('src/grows.ts', join(repo, 'link-to-grows'))
    git(repo, 'add', 'link-to-grows')
    git(repo, 'commit', '-qm', 'link')
    await write(repo, 'src/grows.ts', 'a longer line\n')
    await write(repo, 'src/same-size.ts', 'two\n')
    await touch(repo, 'src/same-size.ts')
    await touch(repo, 'src/touched.ts')
    await rm(join(repo, 'src/deleted.ts'))
    git(repo, 'mv', 'src/old-name.ts', 'src/new-name.ts')
    await rename(join(repo, 'src/moved.ts'), join(repo, 'src/moved-here.ts'))
    git(repo, 'rm', '-q', '--cached', 'src/unstaged.ts')
    git(repo, 'rm', '-q', 'src/removed.ts')
    await write(repo, 'src/staged-then-reverted.ts', 'second\n')
    git(repo, 'add', 'src/staged-then-reverted.ts')
    await write(repo, 'src/staged-then-reverted.ts', 'first\n')
    await write(repo, 'src/added.ts', 'new\n')
    git(repo, 'add', 'src/added.ts')
    await write(repo, 'src/added-then-edited.ts', 'new\n')
    git(repo, 'add', 'src/added-then-edited.ts')
    await write(repo, 'src/added-then-edited.ts', 'newer\n')
    await write(repo, 'src/intent.ts', 'later\n')
    git(repo, 'add', '-N', 'src/intent.ts')
    await chmod(join(repo, 'run.sh'), 0o755)
    await rm(join(repo, 'becomes-link.ts'))
    await symlink('run.sh', join(repo, 'becomes-link.ts'))
    await rm(join(repo, 'link-to-grows'))
    await symlink('src/moved-here.ts', join(repo, 'link-to-grows'))
    await rm(join(repo, 'becomes-dir'))
    await write(repo, 'becomes-dir/inside.ts', 'x\n')
    await write(repo, 'src/untracked.ts', 'x\n')
    await write(repo, 'fresh/a.ts', 'x\n')
    await write(repo, 'fresh/deeper/b.ts', 'x\n')
    await mkdir(join(repo, 'empty/also-empty'), { recursive: true })
    await symlink('run.sh', join(repo, 'new-link'))
    execFileSync('mkfifo', [join(repo, 'a-fifo')])

    const changes = await assertAsGit(repo)
    const expected: Record<string, string> = {
      'src/grows.ts': 'M',
      'src/same-size.ts': 'M',
      'src/deleted.ts': 'D',
      'src/old-name.ts': 'D',
      'src/new-name.ts': 'A',
      'src/moved.ts': 'D',
      'src/moved-here.ts': '??',
      'src/unstaged.ts': '??',
      'src/removed.ts': 'D',
      'src/staged-then-reverted.ts': 'MM',
      'src/added.ts': 'A',
      'src/added-then-edited.ts': 'AM',
      'src/intent.ts': 'A',
      'run.sh': 'M',
      'becomes-link.ts': 'T',
      'link-to-grows': 'M',
      'becomes-dir': 'D',
      'src/untracked.ts': '??',
      'fresh/': '??',
      'new-link': '??',
    }
    assert.deepEqual(Object.fromEntries(changes), expected)
  })

  test('ignore rules: nested files, negation, directories, anchors, ** and info/exclude', async () => {
    const repo = await makeRepository(join(dir, 'ignored'), {
      '.gitignore':
        '*.log\n!important.log\nbuild/\n/top-only.txt\n**/deep/*.tmp\nspaced\\ \n*.[oa]\nv[!0-9]?\n',
      'sub/.gitignore': 'local-*\n!local-keep\n',
      'sub/tracked.ts': 'x\n',
    })
    await write(repo, 'tracked.log', 'force-added\n')
    git(repo, 'add', '-f', 'tracked.log')
    git(repo, 'commit', '-qm', 'an ignored file, tracked')
    await write(repo, '.git/info/exclude', 'by-info.txt\n')
    await write(repo, 'tracked.log', 'still reported when it changes\n')
    await write(repo, 'debug.log', 'x')
    await write(repo, 'important.log', 'x')
    await write(repo, 'build/out.js', 'x')
    await write(repo, 'sub/build/out.js', 'x')
    await write(repo, 'top-only.txt', 'x')
    await write(repo, 'sub/top-only.txt', 'x')
    await write(repo, 'sub/local-one', 'x')
    await write(repo, 'sub/local-keep', 'x')
    await write(repo, 'local-two', 'not under sub/')
    await write(repo, 'a/b/deep/x.tmp', 'x')
    await write(repo, 'a/b/deep/x.ts', 'x')
    await write(repo, 'by-info.txt', 'x')
    await write(repo, 'spaced ', 'x')
    await write(repo, 'only-ignored/x.log', 'x')
    for (const name of ['lib.o', 'lib.a', 'lib.b', 'vx1', 'v12', 'vxy/z'])
      await write(repo, name, 'x')
    // A `.gitignore` that is a link is not followed (git refuses those too).
    await write(join(dir, 'outside-rules'), 'ignore', '*.ts\n')
    await mkdir(join(repo, 'linked-rules'))
    await symlink(join(dir, 'outside-rules', 'ignore'), join(repo, 'linked-rules', '.gitignore'))
    await write(repo, 'linked-rules/kept.ts', 'x')

    const changes = await assertAsGit(repo)
    assert.deepEqual(Object.fromEntries(changes), {
      'tracked.log': 'M',
      'important.log': '??',
      'sub/top-only.txt': '??',
      'sub/local-keep': '??',
      'local-two': '??',
      'a/': '??',
      'linked-rules/': '??',
      'lib.b': '??',
      v12: '??',
    })
  })

  test('line endings: autocrlf and text attributes are applied as git applies them', async () => {
    const repo = join(dir, 'crlf')
    await mkdir(repo)
    git(repo, 'init', '-q')
    git(repo, 'config', 'core.autocrlf', 'true')
    await write(repo, '.gitattributes', '*.crlf text eol=crlf\n*.raw -text\n*.auto text=auto\n')
    await write(repo, 'autocrlf.txt', 'a\r\nb\r\n')
    await write(repo, 'edited.txt', 'a\r\nb\r\n')
    await write(repo, 'attribute.crlf', 'c\r\nd\r\n')
    await write(repo, 'kept.raw', 'e\r\nf\r\n')
    await write(repo, 'binary.auto', Buffer.from('\0\r\n\0\r\n'))
    git(repo, 'add', '.')
    git(repo, 'commit', '-qm', 'initial')
    for (const path of ['autocrlf.txt', 'attribute.crlf', 'kept.raw', 'binary.auto']) {
      await touch(repo, path)
    }
    await write(repo, 'edited.txt', 'a\r\nc\r\n')
    await touch(repo, 'edited.txt')
    assert.deepEqual(Object.fromEntries(await assertAsGit(repo)), { 'edited.txt': 'M' })

    // Without autocrlf or an attribute, CRLF in the work tree is a change.
    const plain = await makeRepository(join(dir, 'crlf-plain'), { 'lf.txt': 'a\nb\n' })
    await write(plain, 'lf.txt', 'a\r\nb\n')
    assert.deepEqual(Object.fromEntries(await assertAsGit(plain)), { 'lf.txt': 'M' })
  })

  test('submodules: another commit checked out is a change, their insides are not walked', async () => {
    const origin = await makeRepository(join(dir, 'sub-origin'), { 'lib.ts': 'v1\n' })
    const repo = await makeRepository(join(dir, 'super'), { 'main.ts': 'x\n' })
    for (const path of ['libs/moved', 'libs/clean']) {
      git(repo, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', origin, path)
    }
    git(repo, 'commit', '-qm', 'submodules')
    const moved = join(repo, 'libs/moved')
    await write(moved, 'lib.ts', 'v2\n')
    git(moved, 'commit', '-qam', 'v2')
    await write(join(repo, 'libs/clean'), 'scratch.ts', 'untracked inside the submodule\n')
    // An untracked repository inside is shown as its directory, never entered.
    await makeRepository(join(repo, 'vendor/nested'), { 'n.ts': 'x\n' })

    const changes = await assertAsGit(repo)
    assert.deepEqual(Object.fromEntries(changes), { 'libs/moved': 'M', 'vendor/': '??' })
  })

  test('conflicts, a repository without commits, packed objects and refs, index v4, SHA-256', async () => {
    const conflicted = await makeRepository(join(dir, 'conflict'), { 'both.ts': 'base\n' })
    git(conflicted, 'checkout', '-qb', 'other')
    await write(conflicted, 'both.ts', 'theirs\n')
    await write(conflicted, 'added-twice.ts', 'theirs\n')
    git(conflicted, 'add', '.')
    git(conflicted, 'commit', '-qm', 'theirs')
    git(conflicted, 'checkout', '-q', '-')
    await write(conflicted, 'both.ts', 'ours\n')
    await write(conflicted, 'added-twice.ts', 'ours\n')
    git(conflicted, 'add', '.')
    git(conflicted, 'commit', '-qm', 'ours')
    assert.throws(() => git(conflicted, 'merge', '-q', 'other'))
    assert.deepEqual(Object.fromEntries(await assertAsGit(conflicted)), {
      'both.ts': 'UU',
      'added-twice.ts': 'AA',
    })

    const unborn = join(dir, 'unborn')
    await mkdir(unborn)
    git(unborn, 'init', '-q')
    await write(unborn, 'staged.ts', 'x\n')
    git(unborn, 'add', 'staged.ts')
    await write(unborn, 'loose.ts', 'x\n')
    assert.deepEqual(Object.fromEntries(await assertAsGit(unborn)), {
      'staged.ts': 'A',
      'loose.ts': '??',
    })

    // Many commits, then gc: HEAD's trees come out of a pack as deltas, refs are packed.
    const packed = await makeRepository(join(dir, 'packed'), { 'a/b/c.ts': '0\n' })
    for (let i = 1; i <= 30; i++) {
      await write(packed, `a/b/file-${i}.ts`, `${i}\n`)
      await write(packed, `a/d-${i % 4}/e.ts`, `${i}\n`)
      git(packed, 'add', '.')
      git(packed, 'commit', '-qm', `commit ${i}`)
    }
    git(packed, 'gc', '-q', '--aggressive')
    // Detached at an old commit: gc keeps the newest trees whole, so this one's are deltas.
    git(packed, 'checkout', '-q', 'HEAD~20')
    git(packed, 'update-index', '--index-version', '4')
    await write(packed, 'a/b/file-7.ts', 'staged\n')
    git(packed, 'add', 'a/b/file-7.ts')
    git(packed, 'rm', '-q', '--cached', 'a/d-1/e.ts')
    assert.deepEqual(Object.fromEntries(await assertAsGit(packed)), {
      'a/b/file-7.ts': 'M',
      'a/d-1/e.ts': 'D',
      'a/d-1/': '??',
    })

    const sha256 = join(dir, 'sha256')
    await mkdir(sha256)
    git(sha256, 'init', '-q', '--object-format=sha256')
    await write(sha256, 'x.ts', 'one\n')
    git(sha256, 'add', '.')
    git(sha256, 'commit', '-qm', 'initial')
    await write(sha256, 'x.ts', 'two\n')
    await touch(sha256, 'x.ts')
    await write(sha256, 'y.ts', 'y\n')
    git(sha256, 'add', 'y.ts')
    assert.deepEqual(Object.fromEntries(await assertAsGit(sha256)), { 'x.ts': 'M', 'y.ts': 'A' })
  })

  test('a directory that became a link out of the repository: its files are deleted, never read', async () => {
    const repo = await makeRepository(join(dir, 'linked'), {
      'src/vault/secret.ts': 'export const inside = 1\n',
      'src/other.ts': 'x\n',
    })
    const outside = join(dir, 'linked-outside')
    await write(outside, 'secret.ts', 'export const inside = 1\n')
    await rm(join(repo, 'src/vault'), { recursive: true })
    await symlink(outside, join(repo, 'src/vault'))
    const probe = await readProbe(join(outside, 'secret.ts'))
    assert.deepEqual(Object.fromEntries(await assertAsGit(repo)), {
      'src/vault': '??',
      'src/vault/secret.ts': 'D',
    })
    if (probe.armed) assert.equal(await probe.wasRead(), false)
    // A `.git` that is a link is not a repository of this directory.
    const elsewhere = await makeRepository(join(dir, 'real-git'), { 'x.ts': 'x\n' })
    const borrowed = join(dir, 'borrowed')
    await write(borrowed, 'x.ts', 'x\n')
    await symlink(join(elsewhere, '.git'), join(borrowed, '.git'))
    assert.equal(await readGitStatus(borrowed, new AbortController().signal), undefined)
  })

  test('fifos planted as a tracked file, a .gitignore or .git/index never hold the reader', async () => {
    const repo = await makeRepository(join(dir, 'fifos'), {
      'src/a.ts': 'x\n',
      'src/b.ts': 'x\n',
      '.gitignore': '*.tmp\n',
    })
    await rm(join(repo, 'src/a.ts'))
    execFileSync('mkfifo', [join(repo, 'src/a.ts')])
    await write(repo, 'x.tmp', 'ignored\n')
    assert.deepEqual(Object.fromEntries(await assertAsGit(repo)), { 'src/a.ts': 'M' })
    // git itself blocks on a fifo .gitignore; the reader finds it is not a file and goes on.
    await rm(join(repo, '.gitignore'))
    execFileSync('mkfifo', [join(repo, '.gitignore')])
    const status = await readGitStatus(await realpath(repo), AbortSignal.timeout(5_000))
    assert.deepEqual(Object.fromEntries(status!.changes), {
      '.gitignore': 'M',
      'src/a.ts': 'M',
      'x.tmp': '??',
    })
    // An index that cannot be read: the brief walks the directory instead, at once.
    await rm(join(repo, '.git/index'))
    execFileSync('mkfifo', [join(repo, '.git/index')])
    const started = Date.now()
    const inventory = await takeInventory(await realpath(repo))
    assert.equal(inventory.git, false)
    assert.ok(Date.now() - started < 5_000)
  })
})
