/**
 * Workspace tools in real turns: the implementer edits a fixture repository (a read is required
 * first) and runs a command in the bubblewrap sandbox, which has no network; the read-only
 * researcher is offered no write or shell tool. Skipped, with the reason, where bubblewrap
 * cannot run; the shell then reports itself unavailable instead (tested in every case).
 */
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { checkSandbox } from '../compute-host/workspaces/sandbox-check.ts'
import { json } from './support/app.ts'
import { postChat, roleOf } from './support/chat.ts'
import type { RecordedRequest, Reply } from './support/scripted-gateway.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { readUiStream, streamedText } from './support/ui-stream.ts'

const sandbox = await checkSandbox()
const toolCount = (r: RecordedRequest) =>
  (r.body.messages as any[]).filter((m) => m.role === 'tool').length
const offered = (r: RecordedRequest) => (r.body.tools ?? []).map((t: any) => t.function.name)

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
    await writeFile(
      join(repo, 'src', 'use.ts'),
      "import { add } from './math.js'\nexport const total: string = add(1, 2)\n",
    )
    stack = await startTestStack({
      models: [{ id: 'remote/a' }],
      hostEnv: { POPAGENT_WORKSPACE_ROOT: join(dir, 'root'), POPAGENT_SHELL_TIMEOUT_MS: '2000' },
    })
    url = await stack.listen()
    for (const id of ['orchistrator', 'researcher', 'implementer']) {
      const res = await stack
        .edge()
        .request(
          `/api/agents/${id}`,
          json({ instructions: `ROLE:${id}`, modelOverride: null }, { method: 'PATCH' }),
        )
      assert.equal(res.status, 200)
    }
    const created = await stack
      .edge()
      .request('/api/workspaces', json({ name: 'proj', path: 'proj' }, { method: 'POST' }))
    workspaceId = ((await created.json()) as any).id
  })
  after(async () => {
    await stack.stop()
    await rm(dir, { recursive: true, force: true })
  })

  test('the implementer reads before it edits, and runs a command with no network', async () => {
    const session = await stack
      .edge()
      .request('/api/sessions', json({ workspaceId }, { method: 'POST' }))
    const sessionId = ((await session.json()) as any).id
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
      assert.deepEqual((await readdir(join(dir, 'root'))).sort(), ['proj'])

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

  test('the researcher inspects TypeScript through the language server', async () => {
    const session = await stack
      .edge()
      .request('/api/sessions', json({ workspaceId }, { method: 'POST' }))
    const sessionId = ((await session.json()) as any).id
    stack.gateway.respondWith((r) => {
      const role = roleOf(r)
      if (role === 'orchistrator') {
        return toolCount(r) === 0
          ? { toolCalls: [{ name: 'agent-researcher', arguments: { prompt: 'inspect' } }] }
          : { text: 'done' }
      }
      if (role === 'researcher' && toolCount(r) === 0) {
        return {
          toolCalls: [
            {
              name: 'lsp-inspect',
              arguments: {
                path: 'src/use.ts',
                line: 2,
                match: 'export const total: string = a<<<dd(1, 2)',
              },
            },
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
      const lsp = chunks.findLast(
        (c) => c.type === 'data-agentActivity' && c.data.tool === 'lsp-inspect',
      )?.data
      assert.equal(lsp?.status, 'completed', JSON.stringify(lsp))
      assert.match(lsp.output, /not assignable to type 'string'/)
      assert.match(lsp.output, /src\/math\.ts/)
      assert.match(lsp.output, /function add\(a: number, b: number\)/)
    } finally {
      stack.gateway.respondWith(undefined)
    }
  })

  test('the read-only researcher is offered no write or shell tool', async () => {
    const session = await stack
      .edge()
      .request('/api/sessions', json({ workspaceId }, { method: 'POST' }))
    const sessionId = ((await session.json()) as any).id
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
      const names = offered(research)
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
  } finally {
    await stack.stop()
  }
})
