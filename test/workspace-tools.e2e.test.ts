/**
 * Workspace tools in real turns: the implementer edits a fixture repository (a read is required
 * first) and runs a command in the bubblewrap sandbox, which has no network; the read-only
 * researcher is offered no write or shell tool. Skipped, with the reason, where bubblewrap
 * cannot run; the shell then reports itself unavailable instead (tested in every case).
 */
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import {
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
import { after, before, describe, test } from 'node:test'
import { checkSandbox } from '../compute-host/workspaces/sandbox-check.ts'
import { createSession, createWorkspace } from './support/api-fixtures.ts'
import { markRoles, offeredTools, postChat, roleOf, toolResultsOf } from './support/chat.ts'
import type { RecordedRequest, Reply } from './support/scripted-gateway.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { readUiStream, streamedText } from './support/ui-stream.ts'

const sandbox = await checkSandbox()
const toolCount = (r: RecordedRequest) => toolResultsOf(r).length

describe('workspace tools in a turn', { skip: !sandbox.available && sandbox.reason }, () => {
  let stack: TestStack
  let url: string
  let dir: string
  let repo: string
  let workspaceId: string
  before(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'popagent-wstools-')))
    repo = join(dir, 'root', 'proj')
    await mkdir(join(repo, 'src'), { recursive: true })
    await mkdir(join(repo, '.git'))
    await mkdir(join(dir, 'outside'))
    await writeFile(join(repo, 'src', 'a.ts'), 'export const answer = 1\n')
    await writeFile(
      join(repo, 'tsconfig.json'),
      '{"compilerOptions":{"strict":true,"noEmit":true,"target":"es2022","module":"nodenext"}}',
    )
    await writeFile(
      join(repo, 'src', 'math.ts'),
      'export function add(a: number, b: number) {\n  return a + b\n}\n',
    )
    await writeFile(join(repo, 'src', 'lib.ts'), 'export const top = Math.max(1, 2)\n')
    await mkdir(join(dir, 'root', 'other'))
    await writeFile(join(dir, 'root', 'other', 'secret.ts'), "export const s = 'OUTSIDE-SECRET'\n")
    await symlink(join(dir, 'root', 'other', 'secret.ts'), join(repo, 'src', 'linked.ts'))
    await writeFile(
      join(repo, 'src', 'use.ts'),
      "import { add } from './math.js'\nexport const total: string = add(1, 2)\n",
    )
    stack = await startTestStack({
      models: [{ id: 'remote/a' }],
      hostEnv: { POPAGENT_WORKSPACE_ROOT: join(dir, 'root'), POPAGENT_SHELL_TIMEOUT_MS: '2000' },
    })
    url = await stack.listen()
    await markRoles(stack, ['orchistrator', 'researcher', 'implementer'])
    workspaceId = await createWorkspace(stack.edge(), 'proj')
  })
  after(async () => {
    await stack.stop()
    await rm(dir, { recursive: true, force: true })
  })

  test('the implementer reads before it edits, and runs a command with no network', async () => {
    const sessionId = await createSession(stack.edge(), workspaceId)
    const OUTSIDE = join(dir, 'outside')
    const LATE = `late-${process.pid}`
    const EDGE_PORT = new URL(url).port
    const ETC_PROBE = `/etc/popagent-escape-${process.pid}`
    const edit = { path: 'src/a.ts', old_string: 'answer = 1', new_string: 'answer = 42' }
    const script: Record<number, Reply> = {
      0: { toolCalls: [{ name: 'workspace-edit', arguments: edit }] },
      1: { toolCalls: [{ name: 'workspace-read', arguments: { path: 'src/a.ts' } }] },
      2: { toolCalls: [{ name: 'workspace-edit', arguments: edit }] },
      3: {
        toolCalls: [
          {
            name: 'shell',
            arguments: {
              command: `echo built > out.txt; cut -d: -f1 /proc/net/dev | tail -n +3 | tr -d ' '; bash -c 'exec 3<>/dev/tcp/127.0.0.1/5432 && echo CONNECTED' 2>/dev/null || echo REFUSED; bash -c 'exec 3<>/dev/tcp/127.0.0.1/${EDGE_PORT} && echo CONNECTED' 2>/dev/null || echo REFUSED; touch ../escape.txt ${OUTSIDE}/x.txt 2>/dev/null; touch ${ETC_PROBE} 2>/dev/null; env`,
              timeout: 20,
            },
          },
        ],
      },
      4: {
        toolCalls: [
          { name: 'shell', arguments: { command: `sleep 30; echo ${LATE}`, timeout: 600 } },
        ],
      },
      5: { toolCalls: [{ name: 'shell', arguments: { command: 'seq 1 100000' } }] },
      6: { text: 'implemented' },
    }
    stack.gateway.respondWith((r) => {
      const role = roleOf(r)
      if (role === 'orchistrator') {
        return toolCount(r) === 0
          ? { toolCalls: [{ name: 'agent-implementer', arguments: { prompt: 'change it' } }] }
          : { text: 'done' }
      }
      if (role === 'implementer') return script[toolCount(r)]
      return { text: 'n/a' }
    })
    try {
      const chunks = await readUiStream(
        await postChat(url, { sessionId, workspaceId, model: 'remote/a', text: 'Set the answer' }),
      )
      assert.equal(streamedText(chunks), 'done')
      assert.equal(await readFile(join(repo, 'src', 'a.ts'), 'utf8'), 'export const answer = 42\n')
      assert.equal(await readFile(join(repo, 'out.txt'), 'utf8'), 'built\n')
      assert.deepEqual(await readdir(join(dir, 'outside')), [])
      assert.deepEqual((await readdir(join(dir, 'root'))).sort(), ['other', 'proj'])

      const tools = new Map<string, any>()
      for (const c of chunks) {
        // The implementer's own calls (the turn's preflight brief is the supervisor's).
        if (
          c.type === 'data-agentActivity' &&
          c.data.kind === 'tool' &&
          c.data.agentId === 'implementer'
        ) {
          tools.set(c.id, c.data)
        }
      }
      const calls = [...tools.values()]
      assert.deepEqual(
        calls.map((t) => [t.tool, t.status]),
        [
          ['workspace-edit', 'failed'],
          ['workspace-read', 'completed'],
          ['workspace-edit', 'completed'],
          ['shell', 'completed'],
          ['shell', 'completed'],
          ['shell', 'completed'],
        ],
      )
      // The model asked for 600 s; the host bound is 2 s, and nothing is left running.
      const slept = calls[4]
      assert.ok(slept.durationMs < 10_000, `sleep ran ${slept.durationMs} ms`)
      assert.ok(!String(slept.output).includes(LATE))
      assert.match(String(slept.output), /timed out|Exit code|killed/i)
      const { execFileSync } = await import('node:child_process')
      const left = execFileSync('ps', ['-eo', 'args']).toString()
      assert.ok(!left.includes(`echo ${LATE}`), 'the timed-out command left a process behind')
      // A flood of output reaches the model cut, with a visible marker.
      assert.match(String(calls[5].output), /\[showing last \d+ of 100000 lines\]/)
      assert.match(calls[0].error, /read/i)
      const shellOutput = calls[3].output as string
      assert.match(shellOutput, /\blo\b/)
      assert.ok(!/eth|ens|wlan|docker/.test(shellOutput), shellOutput)
      assert.equal(shellOutput.match(/REFUSED/g)?.length, 2, 'database and edge ports refused')
      assert.ok(!shellOutput.includes('CONNECTED'))
      // Writes beside the repository or into system paths land in the sandbox's own throwaway
      // root, never on the host.
      assert.equal(existsSync(ETC_PROBE), false)
      assert.ok(!shellOutput.includes('stack-host-token'), 'no host token in the sandbox env')
      assert.ok(!shellOutput.includes('DATABASE_URL'))
    } finally {
      stack.gateway.respondWith(undefined)
    }
  })

  for (const role of ['researcher', 'implementer']) {
    test(`the ${role} inspects TypeScript through the language server, inside the repository only`, async () => {
      const sessionId = await createSession(stack.edge(), workspaceId)
      const inspect = (path: string, line: number, match: string) => ({
        name: 'lsp-inspect',
        arguments: { path, line, match },
      })
      stack.gateway.respondWith((r) => {
        if (roleOf(r) === 'orchistrator') {
          return toolCount(r) === 0
            ? { toolCalls: [{ name: `agent-${role}`, arguments: { prompt: 'inspect' } }] }
            : { text: 'done' }
        }
        if (roleOf(r) === role && toolCount(r) === 0) {
          return {
            toolCalls: [
              inspect('src/use.ts', 2, 'export const total: string = a<<<dd(1, 2)'),
              inspect('src/lib.ts', 1, 'export const top = Math.m<<<ax(1, 2)'),
              inspect('../other/secret.ts', 1, 'export const s = <<<1'),
              inspect('src/linked.ts', 1, 'export const s = <<<1'),
            ],
          }
        }
        return { text: 'inspected' }
      })
      try {
        const chunks = await readUiStream(
          await postChat(url, {
            sessionId,
            workspaceId,
            model: 'remote/a',
            text: 'Why does use.ts fail?',
          }),
        )
        const calls = chunks
          .filter(
            (c) =>
              c.type === 'data-agentActivity' &&
              c.data.tool === 'lsp-inspect' &&
              c.data.status !== 'running',
          )
          .map((c) => c.data)
        assert.equal(calls.length, 4, JSON.stringify(calls))
        const byPath = (path: string) => calls.find((c) => JSON.parse(c.input).path === path)
        const [use, lib, escape, link] = [
          'src/use.ts',
          'src/lib.ts',
          '../other/secret.ts',
          'src/linked.ts',
        ].map(byPath)
        assert.equal(use.status, 'completed', JSON.stringify(use))
        assert.match(use.output, /not assignable to type 'string'/)
        // Locations are repository-relative, with the source line as preview.
        assert.match(use.output, /"src\/math\.ts:L1:C\d+"/)
        assert.match(use.output, /function add\(a: number, b: number\)/)
        // A definition in TypeScript's own lib files is named as outside, with no preview.
        assert.equal(lib.status, 'completed', JSON.stringify(lib))
        assert.match(lib.output, /outside the repository/)
        assert.ok(!lib.output.includes('lib.es'), lib.output)
        assert.ok(!lib.output.includes(dir), 'a host path reached the model')
        assert.equal(escape.status, 'failed', JSON.stringify(escape))
        assert.match(escape.error, /outside the repository/)
        assert.equal(link.status, 'failed', JSON.stringify(link))
        assert.match(link.error, /link that leads outside/)
        assert.ok(!JSON.stringify(calls).includes('OUTSIDE-SECRET'))
      } finally {
        stack.gateway.respondWith(undefined)
      }
    })
  }

  test('the read-only researcher is offered no write or shell tool', async () => {
    const sessionId = await createSession(stack.edge(), workspaceId)
    const seen = stack.gateway.requests.length
    stack.gateway.respondWith((r) =>
      roleOf(r) === 'orchistrator' && toolCount(r) === 0
        ? { toolCalls: [{ name: 'agent-researcher', arguments: { prompt: 'look' } }] }
        : { text: 'ok' },
    )
    try {
      await readUiStream(
        await postChat(url, { sessionId, workspaceId, model: 'remote/a', text: 'Look' }),
      )
      const research = stack.gateway.requests.slice(seen).find((r) => roleOf(r) === 'researcher')!
      const names = offeredTools(research)
      assert.ok(names.includes('workspace-read'), names.join(', '))
      for (const forbidden of ['workspace-write', 'workspace-edit', 'shell']) {
        assert.ok(!names.includes(forbidden), `${forbidden} offered to the researcher`)
      }
    } finally {
      stack.gateway.respondWith(undefined)
    }
  })
})

test('without a working sandbox the shell reports itself unavailable with the fix', async () => {
  const { createAgentFactory } = await import('../compute-host/agents/factory.ts')
  const stack = await startTestStack()
  try {
    const factory = createAgentFactory({
      db: stack.host.resources.databases.application.db,
      models: stack.host.resources.models,
      tools: { bind: () => ({ ok: false, reason: 'n/a' }) },
      sandbox: { available: false, reason: 'bubblewrap not found; install bubblewrap' },
    })
    const { unavailableTools } = await factory.build({ workspaceRoot: tmpdir() })
    const shell = unavailableTools.find((u) => u.agentId === 'implementer' && u.tool === 'shell')
    assert.match(shell?.reason ?? '', /install bubblewrap/)
    // With a working sandbox, a workspace without .git still gets no shell, and says why.
    const withSandbox = createAgentFactory({
      db: stack.host.resources.databases.application.db,
      models: stack.host.resources.models,
      tools: { bind: () => ({ ok: false, reason: 'n/a' }) },
      sandbox: { available: true },
    })
    const noGit = await mkdtemp(join(tmpdir(), 'popagent-no-git-'))
    try {
      const team = await withSandbox.build({ workspaceRoot: noGit })
      const refused = team.unavailableTools.find(
        (u) => u.agentId === 'implementer' && u.tool === 'shell',
      )
      assert.match(refused?.reason ?? '', /not a Git repository/)
      await team.dispose()
      await mkdir(join(noGit, '.git'))
      const withGit = await withSandbox.build({ workspaceRoot: noGit })
      assert.ok(
        !withGit.unavailableTools.some((u) => u.tool === 'shell'),
        'shell offered with .git',
      )
      await withGit.dispose()
    } finally {
      await rm(noGit, { recursive: true, force: true })
    }
  } finally {
    await stack.stop()
  }
})
