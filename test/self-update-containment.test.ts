/**
 * Self-update's containment and patch integrity against real git (issue 24, S3): a dirty
 * checkout is refused; the clone is private, remote-less and on its task branch; nothing the
 * repositories configure (hooks, fsmonitor, filters) runs and no host variable reaches git; every
 * patch-policy denial; a change edited after review is refused; and the reviewed change arrives in
 * the owner's repository as a local ref rebuilt from the patch, with the work tree untouched.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { chmod, mkdir, readdir, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { createId } from '../runtime/ids.ts'
import { patchDigest } from '../runtime/self-update/patch-digest.ts'
import { acceptReview } from '../runtime/self-update/review-gate.ts'
import { readCheckout, requireCleanCheckout } from '../compute-host/self-update/checkout-state.ts'
import { commitMessage } from '../compute-host/self-update/commit-identity.ts'
import { commitReviewed } from '../compute-host/self-update/commit-reviewed.ts'
import { freshClone, type SelfUpdateClone } from '../compute-host/self-update/fresh-clone.ts'
import { gitEnvironment, hostGitText } from '../compute-host/self-update/host-git.ts'
import { importReviewed } from '../compute-host/self-update/import-ref.ts'
import { inspectChange } from '../compute-host/self-update/inspect-change.ts'
import { fixtureRepo, git, snapshot, tempDir, writeFiles } from './support/self-update-repo.ts'

let dir: string
before(async () => {
  dir = await tempDir('self-update')
})
after(async () => {
  await rm(dir, { recursive: true, force: true })
})

const code = (c: string) => (error: unknown) => {
  assert.equal((error as { code?: string }).code, c, (error as Error).message)
  return true
}
let counter = 0
async function repoAndClone(): Promise<{ repo: string; clone: SelfUpdateClone; taskId: string }> {
  const name = `case-${++counter}`
  const repo = await fixtureRepo(dir, name)
  const taskId = createId('task')
  const clone = await freshClone({
    checkout: await requireCleanCheckout(repo),
    taskId,
    into: join(dir, `${name}-clone`),
  })
  return { repo, clone, taskId }
}

test('a dirty checkout is refused: modified, staged or untracked; ignored files are fine', async () => {
  const repo = await fixtureRepo(dir, 'dirty')
  await writeFiles(repo, { 'ignored/build.log': 'x' })
  assert.equal((await requireCleanCheckout(repo)).changes.length, 0, 'ignored files do not count')
  await writeFile(join(repo, 'src/greet.ts'), 'changed\n')
  await assert.rejects(requireCleanCheckout(repo), code('CHECKOUT_DIRTY'))
  await git(repo, 'checkout', '--', 'src/greet.ts')
  await writeFile(join(repo, 'new.txt'), 'untracked\n')
  await assert.rejects(requireCleanCheckout(repo), (error) => {
    code('CHECKOUT_DIRTY')(error)
    assert.deepEqual((error as { data: { changes: string[] } }).data.changes, ['?? new.txt'])
    return true
  })
  await git(repo, 'add', 'new.txt')
  await assert.rejects(requireCleanCheckout(repo), code('CHECKOUT_DIRTY'))
  await git(repo, 'rm', '--cached', '--quiet', 'new.txt')
  await unlink(join(repo, 'new.txt'))
  await requireCleanCheckout(repo)
  await assert.rejects(requireCleanCheckout(join(repo, 'src')), code('CHECKOUT_UNUSABLE'))
  await mkdir(join(dir, 'not-a-repo'))
  await assert.rejects(requireCleanCheckout(join(dir, 'not-a-repo')), code('CHECKOUT_UNUSABLE'))
})

test('the clone is private: own objects, no .git in the work tree, no remote, on the task branch', async () => {
  const { repo, clone, taskId } = await repoAndClone()
  assert.equal(clone.branch, `autonomous/self-update/${taskId}`)
  assert.ok(!existsSync(join(clone.workTree, '.git')), 'agents see files only')
  assert.ok(!clone.gitDir.startsWith(clone.workTree))
  const at = { cwd: clone.workTree, env: { GIT_DIR: clone.gitDir, GIT_WORK_TREE: clone.workTree } }
  assert.equal((await hostGitText(['remote'], at)).trim(), '', 'no remote to push to')
  assert.equal((await hostGitText(['config', '--list', '--local'], at)).includes(repo), false)
  assert.equal(
    (await hostGitText(['symbolic-ref', 'HEAD'], at)).trim(),
    `refs/heads/autonomous/self-update/${taskId}`,
  )
  assert.equal(
    (await hostGitText(['rev-parse', 'HEAD'], at)).trim(),
    (await git(repo, 'rev-parse', 'HEAD')).trim(),
  )
  // Copied, not hard-linked: no object file of the clone shares an inode with the original's.
  const links = async (objects: string): Promise<number[]> => {
    const out: number[] = []
    for (const entry of await readdir(objects, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) out.push((await stat(join(entry.parentPath, entry.name))).nlink)
    }
    return out
  }
  assert.ok((await links(join(clone.gitDir, 'objects'))).every((n) => n === 1))
  assert.equal(
    (await stat(join(clone.workTree, '..'))).mode & 0o077,
    0,
    'the clone is private to the host',
  )
})

test('no host variable reaches git or what it starts; the host GIT_DIR does not steer it', async () => {
  const { clone } = await repoAndClone()
  process.env.OPENAI_API_KEY = 'sk-canary-never-in-git'
  process.env.GIT_DIR = '/nonexistent'
  try {
    // A shell alias shows exactly the environment git hands to anything it runs.
    const env = await hostGitText(['showenv'], {
      cwd: clone.workTree,
      env: { GIT_DIR: clone.gitDir },
      config: ['alias.showenv=!env'],
    })
    assert.ok(!env.includes('sk-canary'), 'no model key')
    assert.ok(env.split('\n').includes(`GIT_DIR=${clone.gitDir}`), 'the host GIT_DIR is ignored')
    const names = env
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('=')[0])
    const allowed = new Set([
      ...Object.keys(gitEnvironment({ GIT_DIR: '' })),
      'PWD',
      'SHLVL',
      '_',
      'GIT_PREFIX',
      'GIT_EXEC_PATH',
      'OLDPWD',
      // git's own: the -c settings it hands its children
      'GIT_CONFIG_PARAMETERS',
    ])
    assert.deepEqual(
      names.filter((n) => !allowed.has(n!)),
      [],
      'only the fixed variables',
    )
  } finally {
    delete process.env.OPENAI_API_KEY
    delete process.env.GIT_DIR
  }
})

test('hooks, fsmonitor and filters the repository configures never run', async () => {
  const repo = await fixtureRepo(dir, 'booby-trapped')
  const marker = join(dir, 'trap-sprung')
  const script = join(dir, 'trap.sh')
  await writeFile(script, `#!/bin/sh\necho "$0 $*" >> ${marker}\ncat\n`)
  await chmod(script, 0o755)
  const hooks = join(repo, '.git', 'hooks')
  for (const hook of [
    'post-checkout',
    'reference-transaction',
    'pre-commit',
    'post-commit',
    'post-index-change',
  ]) {
    await writeFile(join(hooks, hook), `#!/bin/sh\necho ${hook} >> ${marker}\n`)
    await chmod(join(hooks, hook), 0o755)
  }
  await git(repo, 'config', 'core.fsmonitor', script)
  await git(repo, 'config', 'filter.trap.clean', script)
  await git(repo, 'config', 'filter.trap.process', script)
  await git(repo, 'config', 'filter.trap.required', 'true')
  await writeFiles(repo, { '.git/info/attributes': '* filter=trap\n' })
  // A stat-dirty file makes status hash it, which is when a clean filter would run.
  const later = new Date(Date.now() + 5_000)
  const { utimes } = await import('node:fs/promises')
  await utimes(join(repo, 'src/greet.ts'), later, later)
  const checkout = await requireCleanCheckout(repo)
  const taskId = createId('task')
  const clone = await freshClone({ checkout, taskId, into: join(dir, 'trap-clone') })
  await writeFile(
    join(clone.workTree, 'src/greet.ts'),
    "export const greet = (n: string) => 'hi ' + n\n",
  )
  const change = await inspectChange(clone)
  const message = commitMessage({ summary: 'shorter greet', taskId, digest: change.digest })
  const createdAt = new Date('2026-12-01T10:00:00Z')
  const commitSha = await commitReviewed(clone, { ...change, message, createdAt })
  await importReviewed(checkout, { ...change, taskId, createdAt, commitSha, message })
  assert.ok(!existsSync(marker), 'nothing configured in either repository ran')
})

const REASONS: Record<string, RegExp> = {
  'CI configuration': /\.github\/workflows\/ci\.yml is protected/,
  'a lockfile': /package-lock\.json is protected/,
  'an env file': /\.env\.production is protected/,
  'the policy itself': /tool-policy\.ts is protected \(runtime\/self-update/,
  'a deploy script': /scripts\/deploy\.sh is protected/,
  'a symbolic link': /link is a symbolic link/,
  'an exec bit': /greet\.ts changes its mode/,
  'a binary file': /blob\.bin is binary/,
  'a deleted test': /greet\.test\.ts is a test/,
  'a focused test': /\.only\(/,
  'package.json scripts': /package\.json scripts changed/,
  'a nested repository': /vendor\/x is a submodule/,
  'too many files': /files 21 exceeds 20/,
  'too many lines': /changedLines 801 exceeds 800/,
  'too many bytes': /patchBytes \d+ exceeds 120000/,
  'nothing at all': /the change is empty/,
}

test('every patch-policy denial is refused at inspection, naming the rule', async () => {
  const cases: [string, (work: string) => Promise<void>, string][] = [
    [
      'CI configuration',
      (w) => writeFiles(w, { '.github/workflows/ci.yml': 'on: pull_request\n' }),
      'PATCH_POLICY_REFUSED',
    ],
    ['a lockfile', (w) => writeFiles(w, { 'package-lock.json': '{}\n' }), 'PATCH_POLICY_REFUSED'],
    [
      'an env file',
      (w) => writeFiles(w, { 'config/.env.production': 'KEY=1\n' }),
      'PATCH_POLICY_REFUSED',
    ],
    [
      'the policy itself',
      (w) => writeFiles(w, { 'runtime/self-update/tool-policy.ts': 'x\n' }),
      'PATCH_POLICY_REFUSED',
    ],
    [
      'a deploy script',
      (w) => writeFiles(w, { 'scripts/deploy.sh': 'echo\n' }),
      'PATCH_POLICY_REFUSED',
    ],
    ['a symbolic link', (w) => symlink('/etc/passwd', join(w, 'link')), 'PATCH_POLICY_REFUSED'],
    ['an exec bit', (w) => chmod(join(w, 'src/greet.ts'), 0o755), 'PATCH_POLICY_REFUSED'],
    [
      'a binary file',
      (w) => writeFiles(w, { 'src/blob.bin': Buffer.from([0, 1, 2, 0, 255]) }),
      'PATCH_POLICY_REFUSED',
    ],
    ['a deleted test', (w) => unlink(join(w, 'test/greet.test.ts')), 'PATCH_POLICY_REFUSED'],
    [
      'a focused test',
      (w) => writeFiles(w, { 'test/new.test.ts': "test.only('x', () => {})\n" }),
      'PATCH_POLICY_REFUSED',
    ],
    [
      'package.json scripts',
      (w) =>
        writeFiles(w, {
          'package.json': JSON.stringify({
            name: 'fixture',
            scripts: { test: 'true' },
            dependencies: {},
          }),
        }),
      'PATCH_POLICY_REFUSED',
    ],
    [
      'a nested repository',
      async (w) => {
        await mkdir(join(w, 'vendor/x'), { recursive: true })
        await git(join(w, 'vendor/x'), 'init', '-q')
        await writeFiles(join(w, 'vendor/x'), { f: '1' })
        await git(join(w, 'vendor/x'), 'add', 'f')
        await git(join(w, 'vendor/x'), 'commit', '-qm', 'x')
      },
      'PATCH_POLICY_REFUSED',
    ],
    [
      'too many files',
      (w) =>
        writeFiles(
          w,
          Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`src/f${i}.ts`, `${i}\n`])),
        ),
      'PATCH_LIMIT_EXCEEDED',
    ],
    [
      'too many lines',
      (w) => writeFiles(w, { 'src/long.ts': 'x\n'.repeat(801) }),
      'PATCH_LIMIT_EXCEEDED',
    ],
    [
      'too many bytes',
      (w) => writeFiles(w, { 'src/wide.ts': `${'y'.repeat(1_000)}\n`.repeat(130) }),
      'PATCH_LIMIT_EXCEEDED',
    ],
    ['nothing at all', async () => {}, 'PATCH_POLICY_REFUSED'],
  ]
  for (const [name, change, expected] of cases) {
    const { clone } = await repoAndClone()
    await change(clone.workTree)
    await assert.rejects(
      inspectChange(clone),
      (error) => code(expected)(error) && REASONS[name]!.test((error as Error).message),
      name,
    )
  }
  // The configured list replaces the default one; the policy's own paths stay protected.
  const { clone } = await repoAndClone()
  await writeFiles(clone.workTree, { 'docs/private/plan.md': 'x\n' })
  await assert.rejects(
    inspectChange(clone, { protectedPaths: ['docs/private/**'] }),
    code('PATCH_POLICY_REFUSED'),
  )
  const { clone: ci } = await repoAndClone()
  await writeFiles(ci.workTree, { '.github/workflows/ci.yml': 'on: pull_request\n' })
  assert.equal((await inspectChange(ci, { protectedPaths: [] })).files.length, 1)
})

test('a reviewed change becomes a local ref rebuilt from the patch; the work tree is untouched', async () => {
  const { repo, clone, taskId } = await repoAndClone()
  const checkout = await readCheckout(repo)
  const before = await snapshot(repo)
  await writeFile(
    join(clone.workTree, 'src/greet.ts'),
    'export function greet(name: string) {\n  return `hello ${name}`\n}\n',
  )
  await writeFiles(clone.workTree, { 'docs/greet.md': 'greet says hello\n' })
  const change = await inspectChange(clone)
  assert.deepEqual(
    change.files.map((f) => [f.path, f.status, f.added, f.deleted]),
    [
      ['docs/greet.md', 'A', 1, 0],
      ['src/greet.ts', 'M', 1, 1],
    ],
  )
  acceptReview(change.digest, {
    digest: change.digest,
    verdict: 'approve',
    testIntegrity: 'unchanged',
    findings: [],
  })
  const createdAt = new Date('2026-12-01T10:00:00Z')
  const message = commitMessage({
    summary: 'greet with a template literal',
    taskId,
    digest: change.digest,
  })
  const commitSha = await commitReviewed(clone, { ...change, message, createdAt })
  const imported = await importReviewed(checkout, {
    ...change,
    taskId,
    createdAt,
    commitSha,
    message,
  })
  assert.deepEqual(imported, {
    ref: `refs/heads/autonomous/self-update/${taskId}`,
    commitSha,
    alreadyImported: false,
  })

  // The owner's git agrees: parent is the base, tree is the inspected one, and the digest of the
  // patch between them, made by the owner's git, is the one the reviewer echoed.
  const ref = imported.ref
  assert.equal((await git(repo, 'rev-parse', `${ref}^`)).trim(), checkout.head)
  assert.equal((await git(repo, 'rev-parse', `${ref}^{tree}`)).trim(), change.treeSha)
  const ownerPatch = await git(
    repo,
    'diff',
    '--binary',
    '--full-index',
    '--no-renames',
    '-U3',
    checkout.head,
    ref,
    '--',
  )
  assert.equal(await patchDigest(checkout.head, Buffer.from(ownerPatch)), change.digest)
  assert.equal(
    createHash('sha256')
      .update(`popagent.selfupdate.v1\nbase ${checkout.head}\n`)
      .update(ownerPatch)
      .digest('hex'),
    change.digest,
  )
  assert.equal(await snapshot(repo), before, 'work tree, index, HEAD and config untouched')
  assert.equal((await git(repo, 'status', '--porcelain')).trim(), '')
  assert.equal((await git(repo, 'symbolic-ref', 'HEAD')).trim(), 'refs/heads/main')
  // Importing again finds its own ref: done, nothing rewritten.
  const again = await importReviewed(checkout, { ...change, taskId, createdAt, commitSha, message })
  assert.equal(again.alreadyImported, true)
})

test('a change edited after review is refused before commit and at import', async () => {
  const { repo, clone, taskId } = await repoAndClone()
  const checkout = await readCheckout(repo)
  await writeFiles(clone.workTree, { 'docs/a.md': 'reviewed\n' })
  const change = await inspectChange(clone)
  await writeFiles(clone.workTree, { 'docs/a.md': 'reviewed, then edited\n' })
  const createdAt = new Date()
  const message = commitMessage({ summary: 'docs', taskId, digest: change.digest })
  await assert.rejects(
    commitReviewed(clone, { ...change, message, createdAt }),
    code('PATCH_CHANGED_AFTER_REVIEW'),
  )
  // The reviewed digest with another patch (same length, one byte different) is refused at import.
  const tampered = Buffer.from(change.patch.toString('utf8').replace('+reviewed', '+Reviewed'))
  await assert.rejects(
    importReviewed(checkout, {
      ...change,
      patch: tampered,
      taskId,
      createdAt,
      commitSha: 'f'.repeat(40),
      message,
    }),
    code('PATCH_CHANGED_AFTER_REVIEW'),
  )
  assert.equal((await git(repo, 'for-each-ref', 'refs/heads/autonomous')).trim(), '')
})

test('a tampered clone or a repository that moved on gets no ref', async () => {
  const { repo, clone, taskId } = await repoAndClone()
  const checkout = await readCheckout(repo)
  await writeFiles(clone.workTree, { 'docs/b.md': 'b\n' })
  const change = await inspectChange(clone)
  const createdAt = new Date('2026-12-01T10:00:00Z')
  const message = commitMessage({ summary: 'docs b', taskId, digest: change.digest })
  const commitSha = await commitReviewed(clone, { ...change, message, createdAt })
  const refsBefore = await git(repo, 'for-each-ref')
  // A commit id the patch does not rebuild (the clone's history was rewritten) is refused.
  await assert.rejects(
    importReviewed(checkout, {
      ...change,
      taskId,
      createdAt,
      commitSha: commitSha.replace(/^./, (c) => (c === '0' ? '1' : '0')),
      message,
    }),
    code('SELF_UPDATE_IMPORT_REFUSED'),
  )
  // The owner committed meanwhile: HEAD moved, so the recorded state no longer holds.
  await writeFiles(repo, { 'README.md': '# moved on\n' })
  await git(repo, 'commit', '-qam', 'owner work')
  const refsMoved = await git(repo, 'for-each-ref')
  await assert.rejects(
    importReviewed(checkout, { ...change, taskId, createdAt, commitSha, message }),
    code('SELF_UPDATE_IMPORT_REFUSED'),
  )
  assert.equal(await git(repo, 'for-each-ref'), refsMoved, 'no ref written')
  assert.notEqual(refsMoved, refsBefore)
})
