/**
 * Hooks in real turns (X3), on a real stack with the scripted gateway: a PreToolUse deny stops a
 * real tool call (its edit never happens), the model is told why, the audit row shows it, and a
 * task denied this way fails once without a retry or a remediation. Hooks that time out, crash,
 * answer garbage or exit non-zero deny on a blocking event. A UserPromptSubmit hook's context
 * reaches the model request; its deny stops the turn before any model call. Command hooks run
 * in bubblewrap: skipped, with the reason, where it cannot run.
 */
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { checkSandbox } from '../compute-host/workspaces/sandbox-check.ts'
import type { z } from 'zod'
import type { CreateHookInput as CreateHookSchema } from '../runtime/contracts/hooks.ts'
import { createSession, createWorkspace } from './support/api-fixtures.ts'
import { markRoles, messagesOf, postChat, roleOf, toolResultsOf } from './support/chat.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { readUiStream } from './support/ui-stream.ts'
import { okJson, errorJson, typedClient, type Client } from './support/typed-client.ts'
import { until } from './support/until.ts'

const sandbox = await checkSandbox()
const SKIP =
  !sandbox.available &&
  `bubblewrap cannot run here (${sandbox.reason}); install it with: apt install bubblewrap`

/** A hook that reads its event and answers with `answer` (a shell snippet's output). */
type CreateHookInput = z.input<typeof CreateHookSchema>

const answering = (answer: string) => ['sh', '-c', `cat >/dev/null; ${answer}`]
const json = (o: unknown) => `printf '%s' '${JSON.stringify(o)}'`

describe('hooks in real turns', { skip: SKIP }, () => {
  let stack: TestStack
  let url: string
  let dir: string
  let repo: string
  let workspaceId: string
  let api: Client['api']
  /** The session of every run reported started (the run is prepared beside the claim). */
  const runsStarted: string[] = []
  const edit = { path: 'src/a.ts', old_string: 'answer = 1', new_string: 'answer = 42' }
  const ORIGINAL = 'export const answer = 1\n'

  before(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'popagent-hooks-')))
    repo = join(dir, 'root', 'proj')
    await mkdir(join(repo, 'src'), { recursive: true })
    await mkdir(join(repo, '.git'))
    await writeFile(join(repo, 'src', 'a.ts'), ORIGINAL)
    stack = await startTestStack({
      models: [{ id: 'remote/a' }],
      hostEnv: {
        POPAGENT_WORKSPACE_ROOT: join(dir, 'root'),
        POPAGENT_SECRET_KEY: randomBytes(32).toString('base64'),
      },
    })
    url = await stack.listen()
    api = typedClient(stack.edge()).api
    stack.host.resources.observers.addRunObserver((event) => {
      if (event.type === 'run-start') runsStarted.push(event.run.sessionId ?? '')
    })
    await markRoles(stack, ['orchistrator', 'researcher', 'implementer'])
    workspaceId = await createWorkspace(stack.edge(), 'proj')
    // The supervisor delegates once; the implementer reads, then edits, then answers.
    stack.gateway.respondWith((r) => {
      const done = toolResultsOf(r).length
      if (roleOf(r) === 'orchistrator') {
        return done === 0
          ? { toolCalls: [{ name: 'agent-implementer', arguments: { prompt: 'change it' } }] }
          : { text: 'done' }
      }
      if (roleOf(r) === 'implementer') {
        if (done === 0)
          return { toolCalls: [{ name: 'workspace-read', arguments: { path: 'src/a.ts' } }] }
        // The edit, then the very same edit again (a model that did not take no for an answer).
        if (done === 1 || done === 2)
          return { toolCalls: [{ name: 'workspace-edit', arguments: edit }] }
        return { text: 'implemented' }
      }
      return { text: 'n/a' }
    })
  })
  after(async () => {
    await stack.stop()
    await rm(dir, { recursive: true, force: true })
  })

  const createHook = async (hook: CreateHookInput) =>
    okJson(await api.hooks.$post({ json: hook }), 201)
  const removeHook = async (id: string) =>
    okJson(await api.hooks[':id'].$delete({ param: { id } }), 200)
  const implementerRequests = () =>
    stack.gateway.requests.filter((r) => roleOf(r) === 'implementer')

  test('a PreToolUse deny stops the edit: the file is unchanged, the model hears why, the audit shows it', async () => {
    const hook = await createHook({
      name: 'no edits',
      event: 'PreToolUse',
      kind: 'command',
      matcher: 'workspace-edit',
      command: answering(json({ decision: 'deny', reason: 'edits are frozen today' })),
    })
    try {
      const sessionId = await createSession(stack.edge(), workspaceId)
      const before = stack.gateway.requests.length
      await readUiStream(
        await postChat(url, { sessionId, workspaceId, model: 'remote/a', text: 'Set it' }),
      )
      assert.equal(await readFile(join(repo, 'src', 'a.ts'), 'utf8'), ORIGINAL, 'the edit ran')
      // The implementer's request after the refused edit carries the reason as the tool result.
      const after = implementerRequests().filter((r) => stack.gateway.requests.indexOf(r) >= before)
      const results = JSON.stringify(toolResultsOf(after.at(-1)!))
      assert.match(results, /edits are frozen today/)
      assert.match(results, /final/)

      const runs = (
        await okJson(await api.sessions[':id'].hooks.$get({ param: { id: sessionId } }), 200)
      ).runs
      // The repeated call was refused from the run's ledger: the hook ran once.
      assert.equal((results.match(/edits are frozen today/g) ?? []).length, 2)
      assert.equal(runs.length, 1, 'only the first matching call ran the hook')
      assert.equal(runs[0]!.outcome, 'deny')
      assert.equal(runs[0]!.toolName, 'workspace-edit')
      assert.equal(runs[0]!.reason, 'edits are frozen today')
      assert.match(runs[0]!.inputPreview, /"event":"PreToolUse"/)
      assert.ok(runs[0]!.durationMs !== null)
    } finally {
      await removeHook(hook.id)
    }
  })

  test('a hook that prints garbage on PreToolUse denies the real call, fail-closed', async () => {
    const hook = await createHook({
      name: 'broken guard',
      event: 'PreToolUse',
      kind: 'command',
      matcher: 'workspace-*',
      command: answering(`echo '{"decision":"maybe"}'`),
    })
    try {
      const sessionId = await createSession(stack.edge(), workspaceId)
      await readUiStream(
        await postChat(url, { sessionId, workspaceId, model: 'remote/a', text: 'Set it' }),
      )
      assert.equal(await readFile(join(repo, 'src', 'a.ts'), 'utf8'), ORIGINAL)
      const runs = (
        await okJson(await api.sessions[':id'].hooks.$get({ param: { id: sessionId } }), 200)
      ).runs
      // workspace-read and workspace-edit both matched and both were refused.
      assert.deepEqual(runs.map((r) => [r.toolName, r.outcome, r.failure]).sort(), [
        ['workspace-edit', 'failed', 'invalid_output'],
        ['workspace-read', 'failed', 'invalid_output'],
      ])
    } finally {
      await removeHook(hook.id)
    }
  })

  test('timeout, crash, non-zero exit, empty and oversize answers each deny, with the kind recorded', async () => {
    const cases: Array<[string[], string]> = [
      [answering('sleep 5'), 'timeout'],
      [['sh', '-c', 'kill -9 $$'], 'signal'],
      [answering('exit 1'), 'nonzero_exit'],
      [answering('true'), 'empty_output'],
      [answering('head -c 70000 /dev/zero | tr "\\0" a'), 'oversize'],
      [answering('echo not json'), 'invalid_output'],
    ]
    for (const [command, failure] of cases) {
      const hook = await createHook({
        name: failure,
        event: 'PreToolUse',
        kind: 'command',
        command,
        timeoutMs: 500,
      })
      try {
        const started = Date.now()
        const verdict = await okJson(
          await api.hooks[':id'].test.$post({
            param: { id: hook.id },
            json: { toolName: 'shell', input: { command: 'ls' } },
          }),
          200,
        )
        assert.equal(verdict.decision, 'deny', failure)
        assert.equal(verdict.runs[0]!.failure, failure)
        assert.equal(verdict.runs[0]!.outcome, 'failed')
        assert.match(verdict.reason ?? '', new RegExp(`failed \\(${failure}\\)`))
        assert.ok(Date.now() - started < 4_000, `${failure} took ${Date.now() - started} ms`)
      } finally {
        await removeHook(hook.id)
      }
    }
  })

  test("a command hook sees no network and none of the host's environment", async () => {
    const probe = `printf '{"decision":"deny","reason":"%s"}' "net:$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' \\n') env:$(env | cut -d= -f1 | tr '\\n' ,)"`
    const hook = await createHook({
      name: 'probe',
      event: 'PreToolUse',
      kind: 'command',
      command: answering(probe),
    })
    try {
      const verdict = await okJson(
        await api.hooks[':id'].test.$post({ param: { id: hook.id }, json: { toolName: 'shell' } }),
        200,
      )
      const reason = verdict.reason ?? ''
      assert.match(reason, /^net:lo env:/)
      assert.doesNotMatch(reason, /DATABASE_URL|POPAGENT_|NINEROUTER/)
      // Only what the sandbox sets, and what sh adds itself.
      const allowed = new Set(['HOME', 'LANG', 'PATH', 'PWD', 'OLDPWD', 'SHLVL', '_'])
      const names = reason
        .replace(/^net:lo env:/, '')
        .split(',')
        .filter(Boolean)
      assert.ok(names.includes('PATH'), reason)
      for (const name of names) assert.ok(allowed.has(name), `the hook saw ${name}`)
    } finally {
      await removeHook(hook.id)
    }
  })

  test('a secret reaches only the environment of the hook it is bound to, and comes back redacted', async () => {
    const value = `hook-env-${randomBytes(12).toString('hex')}`
    const secret = await okJson(await api.secrets.$post({ json: { name: 'DEPLOY', value } }), 201)
    const say = (text: string) => answering(`printf '{"decision":"deny","reason":"%s"}' "${text}"`)
    const bound = await createHook({
      name: 'bound',
      event: 'PreToolUse',
      kind: 'command',
      command: say('sha:$(printf %s "$DEPLOY_TOKEN" | sha256sum | cut -c1-64) raw:$DEPLOY_TOKEN'),
    })
    const unbound = await createHook({
      name: 'unbound',
      event: 'TaskStart',
      kind: 'command',
      command: say('got:${DEPLOY_TOKEN:-nothing}'),
    })
    try {
      const bind = (hookEnv: { hookId: string; envName: string }[]) =>
        api.secrets[':id'].bindings.$put({
          param: { id: secret.id },
          json: { origins: [], hookEnv },
        })
      const view = await okJson(await bind([{ hookId: bound.id, envName: 'DEPLOY_TOKEN' }]), 200)
      assert.deepEqual(view.hookEnv, [{ hookId: bound.id, envName: 'DEPLOY_TOKEN' }])
      await errorJson(await bind([{ hookId: 'hok_00000000000000000000000000', envName: 'X' }]), 404)
      await errorJson(await bind([{ hookId: bound.id, envName: 'PATH' }]), 400)

      const test = async (id: string) =>
        okJson(
          await api.hooks[':id'].test.$post({ param: { id }, json: { toolName: 'shell' } }),
          200,
        )
      const sha = createHash('sha256').update(value).digest('hex')
      const seen = await test(bound.id)
      assert.equal(seen.reason, `sha:${sha} raw:[REDACTED]`)
      assert.ok(!JSON.stringify(seen).includes(value))
      assert.equal((await test(unbound.id)).reason, 'got:nothing')
    } finally {
      await removeHook(bound.id)
      await removeHook(unbound.id)
    }
    // The deleted hook's binding went with it.
    assert.deepEqual((await okJson(await api.secrets.$get(), 200)).secrets[0]!.hookEnv, [])
  })

  test('UserPromptSubmit context reaches the model request; a deny stops the turn before any model call', async () => {
    const context = await createHook({
      name: 'add context',
      event: 'UserPromptSubmit',
      kind: 'command',
      command: answering(
        json({ decision: 'allow', additionalContext: 'CTX-7f3a: prefer small diffs' }),
      ),
    })
    const sessionId = await createSession(stack.edge(), workspaceId)
    try {
      const before = stack.gateway.requests.length
      await readUiStream(
        await postChat(url, { sessionId, workspaceId, model: 'remote/a', text: 'Hello' }),
      )
      const first = stack.gateway.requests.slice(before).find((r) => roleOf(r) === 'orchistrator')!
      const sent = JSON.stringify(messagesOf(first))
      assert.match(sent, /<hook-context>/)
      assert.match(sent, /CTX-7f3a: prefer small diffs/)
    } finally {
      await removeHook(context.id)
    }
    // Two denying hooks: the one first in (priority, created, id) order gives the reason, even
    // though it answers last.
    const slow = await createHook({
      name: 'slow A',
      event: 'UserPromptSubmit',
      kind: 'command',
      priority: 10,
      command: answering(`sleep 0.3; ${json({ decision: 'deny', reason: 'A says no' })}`),
    })
    const fast = await createHook({
      name: 'fast B',
      event: 'UserPromptSubmit',
      kind: 'command',
      priority: 20,
      command: answering(json({ decision: 'deny', reason: 'B says no' })),
    })
    try {
      const before = stack.gateway.requests.length
      const startedBefore = runsStarted.filter((id) => id === sessionId).length
      const res = await postChat(url, { sessionId, workspaceId, model: 'remote/a', text: 'Again' })
      const body = await errorJson(res, 422)
      assert.equal(body.error.code, 'HOOK_DENIED')
      assert.match(body.error.message, /A says no/)
      assert.equal(stack.gateway.requests.length, before, 'a denied prompt reached the model')
      // Its run was prepared while the claim and the hooks ran, and never reported.
      assert.equal(runsStarted.filter((id) => id === sessionId).length, startedBefore)
    } finally {
      await removeHook(slow.id)
      await removeHook(fast.id)
    }
  })

  test("SessionStart context reaches a session's first turn and not its second", async () => {
    const hook = await createHook({
      name: 'session start',
      event: 'SessionStart',
      kind: 'command',
      command: answering(json({ decision: 'allow', additionalContext: 'CTX-start-91c2' })),
    })
    const sessionId = await createSession(stack.edge(), workspaceId)
    const supervisorRequest = async (text: string) => {
      const before = stack.gateway.requests.length
      await readUiStream(await postChat(url, { sessionId, workspaceId, model: 'remote/a', text }))
      const first = stack.gateway.requests.slice(before).find((r) => roleOf(r) === 'orchistrator')
      return JSON.stringify(messagesOf(first!))
    }
    try {
      assert.match(await supervisorRequest('Hello'), /CTX-start-91c2/)
      // The session now holds the first turn's messages, so the next turn is not a start.
      const saved = await okJson(await api.sessions[':id'].$get({ param: { id: sessionId } }))
      assert.equal(saved.messages.length, 2)
      assert.doesNotMatch(await supervisorRequest('And again'), /CTX-start-91c2/)
    } finally {
      await removeHook(hook.id)
    }
  })

  test('a task whose tool call is denied fails once as hook-denied: no retry, no remediation', async () => {
    // The context test's turn was not guarded and made the edit: start from the original again.
    await writeFile(join(repo, 'src', 'a.ts'), ORIGINAL)
    const hook = await createHook({
      name: 'no edits in tasks',
      event: 'PreToolUse',
      kind: 'command',
      matcher: 'workspace-edit',
      command: answering(json({ decision: 'deny', reason: 'frozen' })),
    })
    try {
      const created = await okJson(
        await api.tasks.$post({ json: { prompt: 'Set it', model: 'remote/a', workspaceId } }),
        201,
      )
      const read = async () =>
        okJson(await api.tasks[':id'].$get({ param: { id: created.id } }), 200)
      await until(async () => (await read()).state === 'failed', 60_000, 'the task to fail')
      const task = await read()
      assert.equal(task.lastErrorClass, 'hook-denied')
      assert.equal(task.attemptCount, 1)
      assert.equal(await readFile(join(repo, 'src', 'a.ts'), 'utf8'), ORIGINAL)
      // Nothing is queued after it: no retry and no remediation.
      await new Promise((r) => setTimeout(r, 1_500))
      const after = await read()
      assert.equal(after.state, 'failed')
      assert.equal(after.attemptCount, 1)
      const listed = await okJson(await api.tasks.$get({ query: {} }), 200)
      assert.ok(
        !JSON.stringify(listed).includes(`"parentTaskId":"${created.id}"`),
        'a remediation was queued',
      )
      const runs = (
        await okJson(await api.tasks[':id'].hooks.$get({ param: { id: created.id } }), 200)
      ).runs
      assert.ok(runs.some((r) => r.outcome === 'deny' && r.toolName === 'workspace-edit'))
    } finally {
      await removeHook(hook.id)
    }
  })
})

describe('hook definitions', () => {
  let stack: TestStack
  let api: Client['api']
  before(async () => {
    stack = await startTestStack()
    api = typedClient(stack.edge()).api
  })
  after(() => stack.stop())

  test('are validated: event, matcher, timeout bounds, URL scheme and loopback consent', async () => {
    const bad: unknown[] = [
      { name: 'x', event: 'Nope', kind: 'command', command: ['true'] },
      { name: 'x', event: 'PreToolUse', kind: 'command', command: ['true'], matcher: 'a.*(b)' },
      { name: 'x', event: 'PreToolUse', kind: 'command', command: ['true'], timeoutMs: 50 },
      { name: 'x', event: 'PreToolUse', kind: 'command', command: ['true'], timeoutMs: 600_000 },
      { name: 'x', event: 'PreToolUse', kind: 'command', command: 'rm -rf /' },
    ]
    for (const body of bad) {
      const res = await stack.edge().request('/api/hooks', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      assert.equal(res.status, 400, JSON.stringify(body))
    }
    const refused = async (json: CreateHookInput, pattern: RegExp) => {
      const body = await errorJson(await api.hooks.$post({ json }), 422)
      assert.match(body.error.message, pattern)
    }
    await refused(
      { name: 'x', event: 'PreToolUse', kind: 'http', url: 'http://example.com/hook' },
      /https/,
    )
    await refused(
      { name: 'x', event: 'PreToolUse', kind: 'http', url: 'http://127.0.0.1:9/hook' },
      /allowLoopback/,
    )
    await refused(
      { name: 'x', event: 'PreToolUse', kind: 'command', command: ['true'], matcher: 'bsh' },
      /no tool is named bsh/,
    )
    await refused(
      { name: 'x', event: 'PreToolUse', kind: 'command', command: ['true'], matcher: 'fsx*' },
      /no tool is named fsx…/,
    )
    const ok = await okJson(
      await api.hooks.$post({
        json: {
          name: 'local',
          event: 'PreToolUse',
          kind: 'http',
          url: 'http://127.0.0.1:9/hook',
          allowLoopback: true,
        },
      }),
      201,
    )
    assert.equal(ok.timeoutMs, 10_000)
    const patched = await okJson(
      await api.hooks[':id'].$patch({ param: { id: ok.id }, json: { enabled: false } }),
      200,
    )
    assert.equal(patched.enabled, false)
    assert.equal((await okJson(await api.hooks.$get(), 200)).hooks.length, 1)
  })

  test('SessionEnd hooks run when a session is archived and when one is deleted, before the change', async () => {
    const hook = await okJson(
      await api.hooks.$post({
        json: {
          name: 'session-end',
          event: 'SessionEnd',
          kind: 'command',
          command: answering(json({ decision: 'allow' })),
        },
      }),
      201,
    )
    try {
      const runsOf = async (id: string) =>
        (await okJson(await api.sessions[':id'].hooks.$get({ param: { id } }))).runs
      const archived = await createSession(stack.edge())
      await okJson(
        await api.sessions[':id'].$patch({ param: { id: archived }, json: { archived: true } }),
      )
      const [ended] = await runsOf(archived)
      assert.equal(ended?.event, 'SessionEnd')
      assert.equal(ended?.outcome, 'allow')
      assert.match(ended!.inputPreview, /"reason":"archived"/)
      // Archiving again is no new end.
      await okJson(
        await api.sessions[':id'].$patch({ param: { id: archived }, json: { archived: true } }),
      )
      assert.equal((await runsOf(archived)).length, 1)

      const deleted = await createSession(stack.edge())
      await okJson(await api.sessions[':id'].$delete({ param: { id: deleted } }))
      const [gone] = await runsOf(deleted)
      assert.equal(gone?.event, 'SessionEnd')
      assert.match(gone!.inputPreview, /"reason":"deleted"/)
    } finally {
      await okJson(await api.hooks[':id'].$delete({ param: { id: hook.id } }))
    }
  })

  test('an HTTP hook on loopback answers through the test run; a redirect or an error status denies', async () => {
    const { createServer } = await import('node:http')
    const bodies: string[] = []
    const server = createServer((req, res) => {
      let body = ''
      req.on('data', (c) => (body += c))
      req.on('end', () => {
        bodies.push(body)
        if (req.url === '/deny') {
          res.setHeader('content-type', 'application/json')
          res.end(JSON.stringify({ decision: 'deny', reason: 'http says no' }))
        } else if (req.url === '/redirect') {
          res.writeHead(302, { location: '/deny' }).end()
        } else res.writeHead(500).end()
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const port = (server.address() as { port: number }).port
    try {
      for (const [path, decision, failure] of [
        ['/deny', 'deny', null],
        ['/redirect', 'deny', 'http_status'],
        ['/error', 'deny', 'http_status'],
      ] as const) {
        const hook = await okJson(
          await api.hooks.$post({
            json: {
              name: path,
              event: 'PreToolUse',
              kind: 'http',
              url: `http://127.0.0.1:${port}${path}`,
              allowLoopback: true,
            },
          }),
          201,
        )
        const verdict = await okJson(
          await api.hooks[':id'].test.$post({
            param: { id: hook.id },
            json: { toolName: 'shell' },
          }),
          200,
        )
        assert.equal(verdict.decision, decision, path)
        assert.equal(verdict.runs[0]!.failure, failure, path)
        if (!failure) assert.equal(verdict.reason, 'http says no')
      }
      assert.match(bodies[0]!, /"protocol":"popagent.hooks\/v1"/)
      assert.equal(bodies.length, 3, 'the redirect was followed')
    } finally {
      server.close()
    }
  })
})
