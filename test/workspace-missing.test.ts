/**
 * A workspace whose repository directory does not exist (the default workspace of a fresh start
 * outside a Git checkout): its brief says what to do, and a turn's agents are told the same for
 * every workspace tool they hold, instead of meeting a missing directory. Real stack, scripted
 * gateway.
 */
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { markRoles, postChat, roleOf } from './support/chat.ts'
import type { RecordedRequest } from './support/scripted-gateway.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { errorJson, okJson, typedClient } from './support/typed-client.ts'
import { readUiStream } from './support/ui-stream.ts'

let stack: TestStack
let root: string
before(async () => {
  // A fresh workspace root, and the test stack never provisions the default workspace: its
  // directory is missing.
  root = await mkdtemp(join(tmpdir(), 'popagent-missing-'))
  stack = await startTestStack({
    models: [{ id: 'remote/a' }],
    hostEnv: { POPAGENT_WORKSPACE_ROOT: root },
  })
})
after(async () => {
  await stack.stop()
  await rm(root, { recursive: true, force: true })
})

test('the brief of a workspace with no directory says how to register a repository', async () => {
  const res = await typedClient(stack.edge()).api.workspaces[':id']['repo-brief'].$get({
    param: { id: 'wsp_default' },
    query: { q: 'anything' },
  })
  const body = await errorJson(res, 400)
  assert.equal(body.error.code, 'WORKSPACE_DIRECTORY_MISSING')
  assert.match(body.error.message, /"popagent" does not exist/)
  assert.match(body.error.message, /POST \/api\/workspaces/)
})

test('agents of a turn in that workspace are told why their workspace tools are missing', async () => {
  await markRoles(stack, ['implementer'])
  const api = typedClient(stack.edge()).api
  const session = await api.sessions.$post({ json: { workspaceId: 'wsp_default' } })
  const sessionId = (await okJson(session)).id
  const seen: RecordedRequest[] = []
  stack.gateway.respondWith((r) => {
    seen.push(r)
    const delegated = (r.body?.messages ?? []).some((m: any) => m.role === 'tool')
    if (roleOf(r) === 'implementer') return { text: 'cannot work without a repository' }
    return delegated
      ? { text: 'done' }
      : { toolCalls: [{ name: 'agent-implementer', arguments: { prompt: 'fix it' } }] }
  })
  try {
    const url = await stack.listen()
    await readUiStream(await postChat(url, { sessionId, model: 'remote/a', text: 'Fix the bug' }))
  } finally {
    stack.gateway.respondWith(undefined)
  }
  const implementer = seen.find((r) => roleOf(r) === 'implementer')
  assert.ok(implementer, 'the implementer was never asked')
  const system = JSON.stringify(implementer.body.messages.filter((m: any) => m.role === 'system'))
  assert.match(system, /Tools you hold but cannot use in this run/)
  assert.match(
    system,
    /- workspace-write: the workspace's repository directory \\"popagent\\" does not exist/,
  )
  assert.match(system, /POST \/api\/workspaces/)
})
