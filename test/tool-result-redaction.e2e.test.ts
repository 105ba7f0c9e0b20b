/**
 * A vault value never reaches the model through a tool (issue 35, hole 4). The value sits in a
 * repository file; the orchestrator delegates to the implementer, which reads the file with a
 * file tool and prints it with the shell, and also puts the value into a tool's arguments
 * itself (a steered model sending a secret out). In the next model requests of the implementer
 * and of the orchestrator (which gets the delegation's answer), in every stream chunk and in what
 * the shell actually ran, only `[REDACTED]` appears. Tool results were redacted only in the stream,
 * the trace and the saved session before: the model provider got the value.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { checkSandbox } from '../compute-host/workspaces/sandbox-check.ts'
import { createSession, createWorkspace } from './support/api-fixtures.ts'
import { json } from './support/app.ts'
import { markRoles, postChat, roleOf, toolResultsOf } from './support/chat.ts'
import { leaksIn } from './support/secret-forms.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { readUiStream } from './support/ui-stream.ts'

const sandbox = await checkSandbox()
const SECRET = `tool-canary-${randomBytes(12).toString('base64url')}`

let root: string
let stack: TestStack
let url: string
let workspaceId: string
before(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'popagent-tool-redaction-')))
  const repo = join(root, 'proj')
  await mkdir(repo)
  await writeFile(join(repo, 'config.env'), `API_TOKEN=${SECRET}\n`)
  execFileSync('git', ['init', '-q'], { cwd: repo })
  stack = await startTestStack({
    models: [{ id: 'remote/a' }],
    hostEnv: {
      POPAGENT_WORKSPACE_ROOT: root,
      POPAGENT_SECRET_KEY: randomBytes(32).toString('base64'),
    },
  })
  await markRoles(stack, ['orchistrator', 'implementer'])
  workspaceId = await createWorkspace(stack.edge(), 'proj')
  const stored = await stack
    .edge()
    .request('/api/secrets', json({ name: 'API_TOKEN', value: SECRET }, { method: 'POST' }))
  assert.equal(stored.status, 201, await stored.text())
  url = await stack.listen()
})
after(async () => {
  await stack?.stop()
  await rm(root, { recursive: true, force: true })
})

test('tool results and tool arguments reach no model request and no stream chunk unredacted', async () => {
  const implementerSteps = [
    [
      { name: 'workspace-read', arguments: { path: 'config.env' } },
      ...(sandbox.available
        ? [
            {
              name: 'shell',
              arguments: { command: `cat config.env; echo "ran: ${SECRET}" > ran.txt` },
            },
          ]
        : []),
    ],
  ]
  stack.gateway.respondWith((r) => {
    if (roleOf(r) === 'orchistrator') {
      return toolResultsOf(r).length === 0
        ? { toolCalls: [{ name: 'agent-implementer', arguments: { prompt: 'read the config' } }] }
        : { text: 'done' }
    }
    if (roleOf(r) !== 'implementer') return { text: 'n/a' }
    const step = implementerSteps[toolResultsOf(r).length === 0 ? 0 : 1]
    // The implementer answers with what it read, as a model that repeats a result would.
    return step ? { toolCalls: step } : { text: 'the token is in config.env' }
  })
  const sessionId = await createSession(stack.edge(), workspaceId)
  const before = stack.gateway.requests.length
  const response = await postChat(url, {
    sessionId,
    workspaceId,
    model: 'remote/a',
    text: 'Read the config',
  })
  const chunks: unknown[] = []
  await readUiStream(response, (chunk) => void chunks.push(chunk))
  const requests = stack.gateway.requests.slice(before)
  const afterTools = requests.filter((r) => toolResultsOf(r).length > 0)
  assert.ok(
    afterTools.some((r) => roleOf(r) === 'implementer') &&
      afterTools.some((r) => roleOf(r) === 'orchistrator'),
    'both agents made a request after a tool answered',
  )
  const bodies = JSON.stringify(requests.map((r) => r.body))
  assert.match(bodies, /\[REDACTED\]/, 'the file content reached the model, redacted')
  for (const r of requests) {
    const b = JSON.stringify(r.body) ?? ''
    const i = b.indexOf(SECRET)
  }
  assert.deepEqual(leaksIn(bodies, [SECRET]), [], 'no model request holds the value')
  assert.deepEqual(leaksIn(JSON.stringify(chunks), [SECRET]), [], 'no stream chunk holds it')
  if (sandbox.available) {
    const ran = join(root, 'proj', 'ran.txt')
    assert.ok(existsSync(ran), 'the shell command ran')
    assert.equal(await readFile(ran, 'utf8'), 'ran: [REDACTED]\n', 'it ran redacted')
  }
})
