/**
 * A vault value never reaches the model through a tool (issue 35, hole 4). The value sits in a
 * repository file; the orchestrator delegates to the implementer, which reads the file with a
 * file tool and prints it with the shell, and also puts the value into a tool's arguments
 * itself (a steered model sending a secret out). In the next model requests of the implementer
 * and of the orchestrator (which gets the delegation's answer), in every stream chunk and in what
 * the shell actually ran, only `[REDACTED]` appears. Tool results were redacted only in the stream,
 * the trace and the saved session before: the model provider got the value. Nor may the value
 * be written and then overwritten redacted: the database's write-ahead log is scanned as well.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import postgres from 'postgres'
import { checkSandbox } from '../compute-host/workspaces/sandbox-check.ts'
import { createSession, createWorkspace } from './support/api-fixtures.ts'
import { json } from './support/app.ts'
import { markRoles, postChat, roleOf, toolResultsOf } from './support/chat.ts'
import { leaksIn } from './support/secret-forms.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { readUiStream } from './support/ui-stream.ts'
import { openWalWindow } from './support/wal-scan.ts'

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
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo })
  git('init', '-q')
  git('add', 'config.env')
  git('commit', '-qm', 'config')
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

type Step = { name: string; arguments: Record<string, unknown> }[]

/**
 * One turn: the orchestrator delegates with the value in its brief, the implementer makes `steps`
 * and then answers with the value itself, as a model that repeats what it read would. Returns what the gateway received
 * and what the stream sent.
 */
async function delegatedTurn(steps: Step[]) {
  stack.gateway.respondWith((r) => {
    if (roleOf(r) === 'orchistrator') {
      return toolResultsOf(r).length === 0
        ? { toolCalls: [{ name: 'agent-implementer', arguments: { prompt: `check ${SECRET}` } }] }
        : { text: 'done' }
    }
    if (roleOf(r) !== 'implementer') return { text: 'n/a' }
    const step = steps[toolResultsOf(r).length === 0 ? 0 : steps.length]
    return step ? { toolCalls: step } : { text: `the token is ${SECRET}` }
  })
  const sessionId = await createSession(stack.edge(), workspaceId)
  const before = stack.gateway.requests.length
  const response = await postChat(url, { sessionId, workspaceId, model: 'remote/a', text: 'go' })
  const chunks: unknown[] = []
  await readUiStream(response, (chunk) => void chunks.push(chunk))
  const requests = stack.gateway.requests.slice(before)
  const afterTools = requests.filter((r) => toolResultsOf(r).length > 0)
  assert.ok(
    afterTools.some((r) => roleOf(r) === 'implementer') &&
      afterTools.some((r) => roleOf(r) === 'orchistrator'),
    'both agents made a request after a tool answered',
  )
  return { bodies: JSON.stringify(requests.map((r) => r.body)), chunks: JSON.stringify(chunks) }
}

// First, and with no shell: a turn that runs the shell keeps an undo snapshot of the repository's
// files, whose bytes are the repository's own and are kept as they are, to be restored (and a
// later turn that keeps the same content again rewrites its row).
test('the value is never written to the database and then overwritten redacted', async () => {
  const wal = await openWalWindow(stack.database.url)
  const sql = postgres(stack.database.url, { max: 1, onnotice: () => {} })
  try {
    await delegatedTurn([
      [
        { name: 'workspace-read', arguments: { path: 'config.env' } },
        { name: 'memory-search', arguments: { query: `where is ${SECRET} used` } },
      ],
    ])
    // The scan must first find a value written in the same window, or nothing found means nothing.
    const plant = `wal-plant-${randomBytes(12).toString('base64url')}`
    await sql`create table wal_plant (line text)`
    await sql`insert into wal_plant values (${plant})`
    const written = await wal.text()
    assert.ok(leaksIn(written, [plant]).length > 0, 'the scan finds a value written meanwhile')
    assert.deepEqual(leaksIn(written, [SECRET]), [], 'the write-ahead log never held the value')
  } finally {
    await sql`drop table if exists wal_plant`
    await sql.end({ timeout: 5 })
    await wal.close()
  }
})

test('a file read, a command output and a tool argument reach the model and the stream redacted', async () => {
  const turn = await delegatedTurn([
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
  ])
  assert.match(turn.bodies, /\[REDACTED\]/, 'the file content reached the model, redacted')
  assert.deepEqual(leaksIn(turn.bodies, [SECRET]), [], 'no model request holds the value')
  assert.deepEqual(leaksIn(turn.chunks, [SECRET]), [], 'no stream chunk holds it')
  if (sandbox.available) {
    const ran = join(root, 'proj', 'ran.txt')
    assert.ok(existsSync(ran), 'the shell command ran')
    assert.equal(await readFile(ran, 'utf8'), 'ran: [REDACTED]\n', 'it ran redacted')
  }
})
