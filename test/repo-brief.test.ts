import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { buildRepoBrief, formatRepoBrief } from '../compute-host/repo-brief/brief.ts'
import { json } from './support/app.ts'
import { postChat, roleOf } from './support/chat.ts'
import { runCli } from './support/process.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { readUiStream } from './support/ui-stream.ts'

const offered = (r: any) => (r.body.tools ?? []).map((t: any) => t.function.name)

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
  before(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'popagent-brief-')))
    repo = await fixtureRepository(join(dir, 'root'))
    stack = await startTestStack({
      models: [{ id: 'remote/a' }],
      hostEnv: { POPAGENT_WORKSPACE_ROOT: join(dir, 'root') },
    })
    url = await stack.listen()
    const created = await fetch(
      `${url}/api/workspaces`,
      json({ name: 'app', path: 'app' }, { method: 'POST' }),
    )
    workspaceId = ((await created.json()) as any).id
    for (const id of ['orchistrator', 'researcher', 'implementer']) {
      await fetch(
        `${url}/api/agents/${id}`,
        json({ instructions: `ROLE:${id}`, modelOverride: null }, { method: 'PATCH' }),
      )
    }
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

  test('a repository’s own git config cannot run commands on the host', async () => {
    const marker = join(dir, 'pwned')
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo })
    git('config', 'core.fsmonitor', `touch ${marker}-fsmonitor`)
    git('config', 'filter.evil.clean', `touch ${marker}-filter; cat`)
    await writeFile(join(repo, '.gitattributes'), '* filter=evil\n')
    try {
      const brief = await buildRepoBrief(repo, 'parseConfig parser')
      assert.equal(brief.files[0]?.path, 'src/parser/parse-config.ts')
      assert.equal(existsSync(`${marker}-fsmonitor`), false)
      assert.equal(existsSync(`${marker}-filter`), false)
    } finally {
      git('config', '--unset', 'core.fsmonitor')
      git('config', '--remove-section', 'filter.evil')
      await rm(join(repo, '.gitattributes'))
    }
  })

  test('the HTTP route and the CLI print the same brief, and no model is called', async () => {
    const seen = stack.gateway.requests.length
    const res = await fetch(
      `${url}/api/workspaces/${workspaceId}/repo-brief?${new URLSearchParams({ q: 'parseConfig parser' })}`,
    )
    const body = (await res.json()) as any
    assert.equal(res.status, 200, JSON.stringify(body))
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
    const sessionRes = await fetch(`${url}/api/sessions`, json({ workspaceId }, { method: 'POST' }))
    const sessionId = ((await sessionRes.json()) as any).id
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
      assert.ok(!offered(first).includes('agent-researcher'), offered(first).join(', '))
      assert.ok(offered(first).includes('agent-implementer'))
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
      assert.ok(offered(again).includes('agent-researcher'))
    } finally {
      stack.gateway.respondWith(undefined)
    }
  })
})
