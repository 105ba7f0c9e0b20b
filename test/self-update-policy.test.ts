/**
 * The fixed self-update policy as pure rules: which tools each phase may hold, which verify
 * commands count as a remote, publish or deploy step, which paths are protected, and how a review
 * binds to a digest. The git-level behaviour is in self-update-containment.test.ts.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { selfUpdateBranch, selfUpdateRef } from '../runtime/self-update/branch.ts'
import { refuseCommand } from '../runtime/self-update/command-policy.ts'
import { patchDigest } from '../runtime/self-update/patch-digest.ts'
import { pathPattern } from '../runtime/self-update/path-pattern.ts'
import { DEFAULT_PROTECTED_PATHS, protectedBy } from '../runtime/self-update/protected-paths.ts'
import { acceptReview, requireReviewed } from '../runtime/self-update/review-gate.ts'
import { refuseTool, toolAllowed } from '../runtime/self-update/tool-policy.ts'
import { createId } from '../runtime/ids.ts'
import { createHash } from 'node:crypto'

const code = (c: string) => (error: unknown) => (error as { code?: string }).code === c

test('each phase holds only its allowed tools; the denials name their reason', () => {
  assert.ok(toolAllowed('research', 'workspace-read'))
  assert.ok(!toolAllowed('research', 'workspace-write'), 'research is read-only')
  assert.ok(toolAllowed('implement', 'workspace-edit'))
  assert.ok(!toolAllowed('review', 'workspace-read'), 'the reviewer gets no tools')
  assert.ok(!toolAllowed('decide', 'workspace-read'), 'decide gets no tools')
  const cases: [string, RegExp][] = [
    ['updateWorkingMemory', /memory mutation/],
    ['useBrowserSecret', /secret access/],
    ['browser-navigate', /browser use/],
    ['web-search', /network access/],
    ['shell', /an agent shell/],
    ['deploy-preview', /remote, publish or deploy/],
    ['some-new-tool', /outside the implement list/],
  ]
  for (const [tool, reason] of cases) {
    assert.throws(
      () => refuseTool('implement', tool),
      (error: unknown) =>
        code('TOOL_POLICY_REFUSED')(error) && reason.test((error as Error).message),
      tool,
    )
  }
  assert.doesNotThrow(() => refuseTool('implement', 'workspace-write'))
})

test('verify never runs a remote, publish or deploy step, however it is wrapped', () => {
  const refused = [
    ['git', 'push', 'origin', 'main'],
    ['git', '-C', '.', 'fetch'],
    ['npm', 'publish'],
    ['npm', 'run', 'deploy'],
    ['pnpm', 'run', 'release:prod'],
    ['wrangler', 'deploy'],
    ['/usr/bin/curl', 'https://example.com'],
    ['sh', '-c', 'npm test && npm publish'],
    ['bash', '-c', 'git push --force'],
    ['npx', 'some-tool'],
    ['docker', 'push', 'image'],
  ]
  for (const argv of refused) {
    assert.throws(() => refuseCommand(argv), code('COMMAND_POLICY_REFUSED'), argv.join(' '))
  }
  for (const argv of [
    ['npm', 'test'],
    ['npm', 'run', 'lint'],
    ['node', '--test'],
    ['make', 'check'],
  ]) {
    assert.doesNotThrow(() => refuseCommand(argv), argv.join(' '))
  }
})

test('protected paths: the defaults, a configured list, and the policy itself always', () => {
  for (const path of [
    '.github/workflows/ci.yml',
    '.GitHub/workflows/ci.yml',
    '.husky/pre-commit',
    'packages/api/.env.local',
    'package-lock.json',
    'sub/yarn.lock',
    'db/migrations/0001_x.sql',
    'AGENTS.md',
    'deploy/prod.sh',
    'wrangler.toml',
    'certs/server.pem',
    'compute-host/self-update/host-git.ts',
  ]) {
    assert.ok(protectedBy(path), `${path} is protected by default`)
  }
  for (const path of ['src/index.ts', 'docs/guide.md', 'test/a.test.ts', 'environment.ts']) {
    assert.equal(protectedBy(path), undefined, `${path} may change`)
  }
  const configured = ['docs/private/**']
  assert.equal(protectedBy('docs/private/plan.md', configured), 'docs/private/**')
  assert.equal(protectedBy('.github/workflows/ci.yml', configured), undefined, 'the list replaces')
  assert.ok(protectedBy('runtime/self-update/tool-policy.ts', []), 'the policy cannot be unlisted')
  assert.ok(DEFAULT_PROTECTED_PATHS.length > 10)
  assert.ok(pathPattern('a/**/b.ts').test('a/b.ts') && pathPattern('a/**/b.ts').test('a/x/y/b.ts'))
  assert.ok(!pathPattern('src/*.ts').test('src/deep/x.ts'), '* does not cross directories')
})

test('a review binds to the digest it echoes, and must approve without blockers or weaker tests', () => {
  const digest = 'a'.repeat(64)
  const ok = { digest, verdict: 'approve', testIntegrity: 'unchanged', findings: [] } as const
  assert.doesNotThrow(() => acceptReview(digest, ok))
  assert.throws(
    () => acceptReview(digest, { ...ok, digest: 'b'.repeat(64) }),
    code('REVIEW_DIGEST_MISMATCH'),
  )
  assert.throws(
    () => acceptReview(digest, { ...ok, digest: digest.toUpperCase() }),
    code('REVIEW_DIGEST_MISMATCH'),
  )
  assert.throws(
    () => acceptReview(digest, { ...ok, verdict: 'reject' }),
    code('REVIEW_NOT_APPROVED'),
  )
  assert.throws(
    () => acceptReview(digest, { ...ok, testIntegrity: 'weakened' }),
    code('REVIEW_NOT_APPROVED'),
  )
  assert.throws(
    () => acceptReview(digest, { ...ok, findings: [{ severity: 'blocker', text: 'breaks x' }] }),
    code('REVIEW_NOT_APPROVED'),
  )
  assert.throws(() => requireReviewed(digest, 'c'.repeat(64)), code('PATCH_CHANGED_AFTER_REVIEW'))
})

test('the digest covers a versioned header, the base and the exact patch bytes', async () => {
  const base = '0123456789abcdef0123456789abcdef01234567'
  const patch = new TextEncoder().encode('diff --git a/x b/x\n+1\n')
  const expected = createHash('sha256')
    .update(`popagent.selfupdate.v1\nbase ${base}\n`)
    .update(patch)
    .digest('hex')
  assert.equal(await patchDigest(base, patch), expected)
  const otherBase = 'f'.repeat(40)
  assert.notEqual(await patchDigest(otherBase, patch), expected, 'another base, another digest')
  const oneByte = new TextEncoder().encode('diff --git a/x b/x\n+2\n')
  assert.notEqual(await patchDigest(base, oneByte), expected)
  await assert.rejects(patchDigest('HEAD', patch), /not a sha/)
})

test('the branch name holds only a generated task id', () => {
  const id = createId('task')
  assert.equal(selfUpdateBranch(id), `autonomous/self-update/${id}`)
  assert.equal(selfUpdateRef(id), `refs/heads/autonomous/self-update/${id}`)
  for (const bad of [
    'tsk_default',
    'tsk_../../main',
    '--force',
    `${id}/x`,
    'ses_01JD0000000000000000000000',
  ]) {
    assert.throws(() => selfUpdateBranch(bad), code('SELF_UPDATE_BRANCH_INVALID'), bad)
  }
})
