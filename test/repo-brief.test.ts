import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chmod, mkdir, mkdtemp, realpath, rm, symlink, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, test } from 'node:test'
import { createBriefAdmission } from '../compute-host/repo-brief/admission.ts'
import {
  buildRepoBrief,
  formatRepoBrief,
  RepoBriefBusy,
  repoBriefStats,
} from '../compute-host/repo-brief/brief.ts'
import {
  git as gitIn,
  makeRepository,
  readProbe,
  sleepers,
  slowGitStatus,
} from './support/brief-fixtures.ts'
import { until } from './support/until.ts'
import { createSession, createWorkspace } from './support/api-fixtures.ts'
import { markRoles, offeredTools, postChat, roleOf } from './support/chat.ts'
import { runCli } from './support/process.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { errorJson, okJson, typedClient } from './support/typed-client.ts'
import { readUiStream } from './support/ui-stream.ts'

const BRIEF_IN_CHILD = fileURLToPath(new URL('./support/brief-in-child.ts', import.meta.url))

async function fixtureRepository(root: string) {
  const repo = join(root, 'app')
  await mkdir(join(repo, 'src', 'parser'), { recursive: true })
  await mkdir(join(repo, 'src', 'other'), { recursive: true })
  await writeFile(
    join(repo, 'src', 'parser', 'parse-config.ts'),
    'export function parseConfig(text: string) {\n  return JSON.parse(text)\n}\nexport type ConfigShape = Record<string, unknown>\nconst hidden = 1\n',
  )
  await writeFile(
    join(repo, 'src', 'parser', 'parse-config.test.ts'),
    "import { parseConfig } from './parse-config.ts'\n",
  )
  await writeFile(join(repo, 'src', 'other', 'util.ts'), 'export const util = () => 1\n')
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.test', ...args], {
      cwd: repo,
    })
  git('init', '-q')
  git('add', '.')
  git('commit', '-qm', 'initial')
  await writeFile(join(repo, 'src', 'other', 'util.ts'), 'export const util = () => 2\n')
  await writeFile(join(repo, 'src', 'parser', 'new-rule.ts'), 'export const newRule = true\n')
  return repo
}

describe('repository brief', () => {
  let stack: TestStack
  let dir: string
  let repo: string
  let url: string
  let workspaceId: string
  const askBrief = (id: string, q: string) =>
    typedClient(url).api.workspaces[':id']['repo-brief'].$get({ param: { id }, query: { q } })
  before(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'popagent-brief-')))
    repo = await fixtureRepository(join(dir, 'root'))
    stack = await startTestStack({
      models: [{ id: 'remote/a' }],
      hostEnv: { POPAGENT_WORKSPACE_ROOT: join(dir, 'root') },
    })
    url = await stack.listen()
    workspaceId = await createWorkspace(url, 'app')
    await markRoles(stack, ['orchistrator', 'researcher', 'implementer'])
  })
  after(async () => {
    await stack.stop()
    await rm(dir, { recursive: true, force: true })
  })

  test('paths, exports, adjacent tests and change state, byte-identical twice', async () => {
    const first = formatRepoBrief(await buildRepoBrief(repo, 'fix parseConfig in the parser'))
    const second = formatRepoBrief(await buildRepoBrief(repo, 'fix parseConfig in the parser'))
    assert.equal(first, second)
    const brief = await buildRepoBrief(repo, 'fix parseConfig in the parser')
    const top = brief.files[0]!
    assert.equal(top.path, 'src/parser/parse-config.ts')
    assert.deepEqual(top.exports, ['parseConfig', 'ConfigShape'])
    assert.deepEqual(top.tests, ['src/parser/parse-config.test.ts'])
    assert.ok(brief.readyForImplementation)
    assert.deepEqual(brief.changed, [
      { path: 'src/other/util.ts', status: 'M' },
      { path: 'src/parser/new-rule.ts', status: '??' },
    ])
    const vague = await buildRepoBrief(repo, 'something about rendering')
    assert.equal(vague.readyForImplementation, false)
  })

  test('the brief needs no process: with child processes forbidden it still has its change state', async () => {
    // Node's permission model without --allow-child-process: no bubblewrap, no git, nothing
    // can be started. The brief must come out the same as here, change state included.
    const query = 'fix parseConfig in the parser'
    const out = execFileSync(
      process.execPath,
      ['--permission', '--allow-fs-read=*', BRIEF_IN_CHILD, repo, query],
      { env: { PATH: '' } },
    )
    const child = JSON.parse(out.toString()) as { text: string; spawning: string }
    assert.equal(child.spawning, 'ERR_ACCESS_DENIED')
    assert.equal(child.text, formatRepoBrief(await buildRepoBrief(repo, query)))
    assert.match(
      child.text,
      /## Change state\n- M src\/other\/util\.ts\n- \?\? src\/parser\/new-rule\.ts\n/,
    )
  })

  test('a repository’s own git config, attributes and hooks never run anything', async () => {
    const marker = join(dir, 'pwned')
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo })
    git('config', 'core.fsmonitor', `touch ${marker}-fsmonitor`)
    git('config', 'filter.evil.clean', `touch ${marker}-filter; cat`)
    git('config', 'filter.evil.process', `touch ${marker}-process`)
    git('config', 'core.hooksPath', '.git/evil-hooks')
    await mkdir(join(repo, '.git', 'evil-hooks'))
    for (const hook of ['post-index-change', 'pre-commit', 'post-checkout']) {
      await writeFile(join(repo, '.git', 'evil-hooks', hook), `#!/bin/sh\ntouch ${marker}-hook\n`)
      await chmod(join(repo, '.git', 'evil-hooks', hook), 0o755)
    }
    await writeFile(join(repo, '.gitattributes'), '* filter=evil\n')
    // Same content, another mtime: any git would have to clean (filter) the file to compare it.
    const parser = join(repo, 'src', 'parser', 'parse-config.ts')
    await utimes(parser, new Date(2_000_000_000_000), new Date(2_000_000_000_000))
    try {
      const brief = await buildRepoBrief(repo, 'parseConfig parser')
      assert.equal(brief.files[0]?.path, 'src/parser/parse-config.ts')
      assert.equal(brief.files[0]?.change, undefined, 'same content: unchanged')
      assert.deepEqual(
        brief.changed.map((c) => c.path),
        ['.gitattributes', 'src/other/util.ts', 'src/parser/new-rule.ts'],
      )
      for (const kind of ['fsmonitor', 'filter', 'process', 'hook']) {
        assert.equal(existsSync(`${marker}-${kind}`), false, kind)
      }
    } finally {
      git('config', '--unset', 'core.fsmonitor')
      git('config', '--remove-section', 'filter.evil')
      git('config', '--unset', 'core.hooksPath')
      await rm(join(repo, '.gitattributes'))
      await rm(join(repo, '.git', 'evil-hooks'), { recursive: true })
    }
  })

  test('the HTTP route and the CLI print the same brief, and no model is called', async () => {
    const seen = stack.gateway.requests.length
    const body = await okJson(await askBrief(workspaceId, 'parseConfig parser'), 200)
    assert.equal(body.text, formatRepoBrief(await buildRepoBrief(repo, 'parseConfig parser')))
    const cli = runCli(['repo-brief', 'app', 'parseConfig', 'parser'], { POPAGENT_URL: url })
    assert.equal(await cli.exited, 0, cli.output())
    assert.equal(cli.output(), body.text)
    assert.equal(stack.gateway.requests.length, seen)
    const missing = runCli(['repo-brief', 'nope', 'x'], { POPAGENT_URL: url })
    assert.equal(await missing.exited, 1)
    assert.match(missing.output(), /no workspace with the id or name "nope"/)
  })

  test('a ready brief is injected before the first model call and withholds the researcher', async () => {
    const sessionId = await createSession(url, workspaceId)
    stack.gateway.respondWith(() => ({ text: 'ok' }))
    try {
      const seen = stack.gateway.requests.length
      const chunks = await readUiStream(
        await postChat(url, {
          sessionId,
          workspaceId,
          model: 'remote/a',
          text: 'fix parseConfig in the parser',
        }),
      )
      const first = stack.gateway.requests.slice(seen).find((r) => roleOf(r) === 'orchistrator')!
      assert.ok(JSON.stringify(first.body.messages).includes('src/parser/parse-config.ts'))
      assert.ok(!offeredTools(first).includes('agent-researcher'), offeredTools(first).join(', '))
      assert.ok(offeredTools(first).includes('agent-implementer'))
      const brief = chunks.findLast(
        (c) => c.type === 'data-agentActivity' && c.data.tool === 'repo-brief',
      )
      assert.equal(brief?.data.status, 'completed')

      // The next turn, with a vague request, has the researcher back.
      const next = stack.gateway.requests.length
      await readUiStream(
        await postChat(url, {
          sessionId,
          workspaceId,
          model: 'remote/a',
          text: 'something about rendering',
        }),
      )
      const again = stack.gateway.requests.slice(next).find((r) => roleOf(r) === 'orchistrator')!
      assert.ok(offeredTools(again).includes('agent-researcher'))
    } finally {
      stack.gateway.respondWith(undefined)
    }
  })
  test('a listed path under a directory that became a link out of the repository is never read', async () => {
    // git lists index entries whatever the work tree holds now: `src/vault/secret-token.ts`
    // stays listed after `src/vault` was replaced by a link to a directory outside.
    const linked = await makeRepository(join(dir, 'root', 'linked'), {
      'src/vault/secret-token.ts': 'export const insideToken = 1\n',
      'src/other/secret-token-reader.ts': 'export const readSecretToken = () => 1\n',
    })
    const outside = join(dir, 'outside')
    await mkdir(outside)
    await writeFile(join(outside, 'secret-token.ts'), 'export const OUTSIDE_CANARY_TOKEN = 1\n')
    await rm(join(linked, 'src', 'vault'), { recursive: true })
    await symlink(outside, join(linked, 'src', 'vault'))
    const probe = await readProbe(join(outside, 'secret-token.ts'))

    const brief = await buildRepoBrief(linked, 'secret token')
    assert.ok(!JSON.stringify(brief).includes('OUTSIDE_CANARY'), JSON.stringify(brief))
    const reader = brief.files.find((f) => f.path === 'src/other/secret-token-reader.ts')
    assert.deepEqual(reader?.exports, ['readSecretToken'], 'files inside are still read')
    if (probe.armed) assert.equal(await probe.wasRead(), false, 'the outside file was opened')
    // The same through the HTTP route, for a repository registered as a workspace.
    const id = await createWorkspace(url, 'linked')
    const body = await okJson(await askBrief(id, 'secret token'), 200)
    assert.ok(!body.text.includes('OUTSIDE_CANARY'), body.text)
    if (probe.armed) assert.equal(await probe.wasRead(), false)
  })

  test('an unchanged tree is answered from the cache; an edit, a new file or a commit refreshes it', async () => {
    const repo = await makeRepository(join(dir, 'root', 'cached'), {
      'src/alpha-widget.ts': 'export const alphaWidget = 1\n',
      'src/beta.ts': 'export const beta = 1\n',
    })
    await slowGitStatus(repo, 0.21)
    // How many reads of the slow file ran while one brief was built: the status was read iff one did.
    const gitRunsDuring = async (brief: () => Promise<unknown>) => {
      let seen = 0
      const sampler = setInterval(() => (seen = Math.max(seen, sleepers(0.21).length)), 5)
      try {
        await brief()
      } finally {
        clearInterval(sampler)
      }
      return seen
    }
    let first: Awaited<ReturnType<typeof buildRepoBrief>> | undefined
    assert.equal(
      await gitRunsDuring(async () => (first = await buildRepoBrief(repo, 'alpha widget'))),
      1,
    )
    assert.deepEqual(first!.files[0]?.exports, ['alphaWidget'])
    let again: unknown
    assert.equal(
      await gitRunsDuring(async () => (again = await buildRepoBrief(repo, 'alpha widget'))),
      0,
    )
    assert.deepEqual(again, first)

    await writeFile(join(repo, 'src', 'alpha-widget.ts'), 'export const alphaWidgetTwo = 2\n')
    assert.deepEqual((await buildRepoBrief(repo, 'alpha widget')).files[0]?.exports, [
      'alphaWidgetTwo',
    ])
    await writeFile(join(repo, 'src', 'alpha-widget-extra.ts'), 'export const extra = 1\n')
    const added = await buildRepoBrief(repo, 'alpha widget')
    assert.ok(added.files.some((f) => f.path === 'src/alpha-widget-extra.ts'))
    gitIn(repo, 'add', '.')
    gitIn(repo, 'commit', '-qm', 'second')
    const committed = await buildRepoBrief(repo, 'alpha widget')
    assert.notEqual(committed.head, first!.head)
    assert.deepEqual(committed.changed, [])
  })

  test('at most three briefs run at once, twelve more wait, and past that bound it is a 503', async () => {
    const repo = await makeRepository(join(dir, 'root', 'busy'), {
      'src/busy-thing.ts': 'export const busyThing = 1\n',
    })
    await slowGitStatus(repo, 0.41)
    await writeFile(join(repo, 'src', 'busy-thing.ts'), 'export const busyThing = 2\n')
    const id = await createWorkspace(url, 'busy')
    let peakGit = 0
    let peakBriefs = 0
    const sampler = setInterval(() => {
      peakGit = Math.max(peakGit, sleepers(0.41).length)
      peakBriefs = Math.max(peakBriefs, repoBriefStats().active)
    }, 5)
    try {
      // 3 run, 12 wait, the 16th is refused; distinct queries, so none is a cache hit.
      const answers = await Promise.all(
        Array.from({ length: 16 }, async (_, i) => {
          const res = await askBrief(id, `busy thing ${i}`)
          // A number, not the 200 the route declares: the 503 comes from the error handler.
          const status: number = res.status
          if (res.ok) return { status, body: await okJson(res) }
          return { status, error: (await errorJson(res)).error }
        }),
      )
      const refused = answers.filter((a) => a.status === 503)
      assert.equal(refused.length, 1, JSON.stringify(answers.map((a) => a.status)))
      assert.equal(refused[0]!.error?.code, 'REPO_BRIEF_BUSY')
      assert.equal(answers.filter((a) => a.status === 200).length, 15)
    } finally {
      clearInterval(sampler)
    }
    assert.ok(peakGit <= 3 && peakBriefs === 3, `git ${peakGit}, briefs ${peakBriefs} at once`)
    assert.deepEqual(repoBriefStats(), { limit: 3, active: 0, queued: 0 })
  })

  test('a client that goes away stops its brief and the status read it runs', async () => {
    const repo = await makeRepository(join(dir, 'root', 'cancelled'), {
      'src/slow-thing.ts': 'export const slowThing = 1\n',
    })
    await slowGitStatus(repo, 6.17)
    await writeFile(join(repo, 'src', 'slow-thing.ts'), 'export const slowThing = 2\n')
    const id = await createWorkspace(url, 'cancelled')
    const client = new AbortController()
    const request = fetch(`${url}/api/workspaces/${id}/repo-brief?q=slow+thing`, {
      signal: client.signal,
    }).catch((error: Error) => error)
    await until(() => sleepers(6.17).length === 1, 5_000, 'the brief’s status read to start')
    client.abort()
    assert.equal(((await request) as Error).name, 'AbortError')
    // Well before the hash would end: the edge and the host each passed the abort on.
    await until(() => sleepers(6.17).length === 0, 2_000, 'the brief’s status read to stop')
    await until(() => repoBriefStats().active === 0, 2_000, 'the brief to release its slot')
    // A cancellation is not a failure: the host logs no error for it.
    assert.deepEqual(
      stack.logs.filter((l) => l.level === 'error'),
      [],
    )
  })

  test('a waiting brief whose caller gave up leaves the queue; a full queue refuses at once', async () => {
    const admission = createBriefAdmission(1, 1)
    const running = await admission.acquire()
    const giveUp = new AbortController()
    const waiting = admission.acquire(giveUp.signal)
    await assert.rejects(admission.acquire(), RepoBriefBusy)
    giveUp.abort()
    await assert.rejects(waiting, { name: 'AbortError' })
    assert.deepEqual(admission.stats(), { limit: 1, active: 1, queued: 0 })
    const next = admission.acquire()
    running.release()
    ;(await next).release()
    assert.deepEqual(admission.stats(), { limit: 1, active: 0, queued: 0 })
  })
})
