/**
 * Host git never runs what a submodule configures (issue 35, hole 1). The agent's shell can turn
 * a checked-out submodule's `.git` link into a repository of its own, with configuration,
 * attributes and hooks it wrote. `git status` recurses into every submodule unless told not to,
 * starting a git there that reads that configuration: a `clean` filter ran as the host's user.
 * Each kind of trap is planted in its own submodule, the checkout is read and cloned the way
 * self-update and reconcile read it, and nothing may run. A new commit checked out in a
 * submodule must still count as a change.
 */
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { chmod, mkdir, readFile, rm, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { createId } from '../runtime/ids.ts'
import { readCheckout, requireCleanCheckout } from '../compute-host/self-update/checkout-state.ts'
import { freshClone } from '../compute-host/self-update/fresh-clone.ts'
import { inspectChange } from '../compute-host/self-update/inspect-change.ts'
import { fixtureRepo, git, tempDir, writeFiles } from './support/self-update-repo.ts'

let dir: string
before(async () => {
  dir = await tempDir('submodule-traps')
})
after(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** Each trap: what it writes into the submodule's own (agent-made) git directory. */
const TRAPS: Record<string, (sub: string, script: string) => Promise<unknown>> = {
  'a clean filter': async (sub, script) => {
    await git(sub, 'config', 'filter.trap.clean', script)
    await git(sub, 'config', 'filter.trap.required', 'true')
    await writeFiles(sub, { '.git/info/attributes': '* filter=trap\n' })
  },
  'a long-running filter process': async (sub, script) => {
    await git(sub, 'config', 'filter.trap.process', script)
    await writeFiles(sub, { '.gitattributes': '* filter=trap\n' })
  },
  fsmonitor: (sub, script) => git(sub, 'config', 'core.fsmonitor', script),
  'hooks in a hooks path': async (sub, script) => {
    await mkdir(join(sub, 'hooks'), { recursive: true })
    for (const hook of ['post-index-change', 'reference-transaction', 'post-checkout']) {
      await writeFile(join(sub, 'hooks', hook), `#!/bin/sh\nexec ${script} ${hook}\n`)
      await chmod(join(sub, 'hooks', hook), 0o755)
    }
    await git(sub, 'config', 'core.hooksPath', join(sub, 'hooks'))
  },
  'a textconv and an external diff': async (sub, script) => {
    await git(sub, 'config', 'diff.trap.textconv', script)
    await git(sub, 'config', 'diff.external', script)
    await writeFiles(sub, { '.git/info/attributes': '* diff=trap\n' })
  },
  'an included configuration file': async (sub, script) => {
    await writeFiles(sub, { 'extra.cfg': `[core]\n\tfsmonitor = ${script}\n` })
    await git(sub, 'config', 'include.path', join(sub, 'extra.cfg'))
  },
}

test('nothing a submodule configures runs when host git reads or clones the checkout', async () => {
  const origin = await fixtureRepo(dir, 'library')
  const repo = await fixtureRepo(dir, 'owner')
  const names = Object.keys(TRAPS)
  const paths = names.map((_, i) => `libs/sub-${i}`)
  for (const path of paths) {
    await git(repo, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', origin, path)
  }
  await git(repo, 'commit', '-qm', 'submodules')
  const marker = join(dir, 'trap-sprung')
  const script = join(dir, 'trap.sh')
  await writeFile(script, `#!/bin/sh\necho "$0 $*" >> ${marker}\ncat\n`)
  await chmod(script, 0o755)
  for (const [i, name] of names.entries()) {
    const sub = join(repo, paths[i]!)
    // What the shell can do: replace the `.git` link with a repository of its own at the same
    // commit, so the superproject still sees the submodule it recorded.
    const head = (await git(sub, 'rev-parse', 'HEAD')).trim()
    await rm(join(sub, '.git'))
    await git(sub, 'init', '-q')
    await git(sub, 'fetch', '-q', origin, head)
    await git(sub, 'reset', '-q', head)
    await TRAPS[name]!(sub, script)
    // A stat-dirty tracked file makes a status in there hash it: when a clean filter runs.
    const later = new Date(Date.now() + 5_000)
    await utimes(join(sub, 'src/greet.ts'), later, later)
    await writeFile(join(sub, 'untracked.txt'), 'dirty inside the submodule\n')
  }
  await rm(marker, { force: true })

  const sprung = async () => (existsSync(marker) ? await readFile(marker, 'utf8') : '')
  const state = await readCheckout(repo)
  assert.equal(await sprung(), '', 'no trap ran while reading the checkout')
  assert.deepEqual(state.changes, [], 'changes inside a submodule are not looked into')
  const checkout = await requireCleanCheckout(repo)
  const clone = await freshClone({ checkout, taskId: createId('task'), into: join(dir, 'clone') })
  await writeFile(join(clone.workTree, 'README.md'), '# changed\n')
  await inspectChange(clone)
  assert.equal(await sprung(), '', 'no trap ran while cloning and inspecting')

  // The same traps in the clone: a submodule's empty directory made into a trapped repository.
  for (const [i, name] of names.entries()) {
    const sub = join(clone.workTree, paths[i]!)
    await git(sub, 'init', '-q')
    await git(sub, 'fetch', '-q', origin, 'HEAD')
    await git(sub, 'reset', '-q', '--hard', 'FETCH_HEAD')
    await TRAPS[name]!(sub, script)
  }
  await assert.rejects(inspectChange(clone), (error: Error & { code?: string }) => {
    assert.equal(error.code, 'PATCH_POLICY_REFUSED')
    assert.match(error.message, /libs\/sub-0 is a submodule; self-update does not change/)
    return true
  })
  assert.equal(await sprung(), '', 'no trap ran while inspecting a trapped clone')
})

test('another commit checked out in a submodule is still a change', async () => {
  const origin = await fixtureRepo(dir, 'library-2')
  const repo = await fixtureRepo(dir, 'owner-2')
  await git(repo, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', origin, 'lib')
  await git(repo, 'commit', '-qm', 'submodule')
  assert.deepEqual((await readCheckout(repo)).changes, [])
  await writeFile(join(repo, 'lib', 'README.md'), '# moved on\n')
  await git(join(repo, 'lib'), 'commit', '-qam', 'moved on')
  assert.deepEqual((await readCheckout(repo)).changes, [' M lib'])
})
