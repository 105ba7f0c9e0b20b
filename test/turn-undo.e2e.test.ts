/**
 * Per-turn undo (B3) through the API with a real stack: a scripted turn edits three files and
 * creates one; the user then edits one of them; undo restores the other two, removes the created
 * file and refuses the user's file without touching it. A second undo is refused; a shell-made
 * change is undone (where bubblewrap runs); a file replaced by a link to outside after the turn
 * is refused and nothing is written outside.
 */
import { ErrorResponse } from '../runtime/contracts/errors.ts'
import { TurnChanges as TurnChangesBody, UndoResult } from '../runtime/contracts/turn-changes.ts'
import { randomBytes } from 'node:crypto'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, writeFileSync } from 'node:fs'
import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  symlink,
  unlink,
  writeFile,
} from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { createId } from '../runtime/ids.ts'
import * as TurnChanges from '../runtime/turn-changes/index.ts'
import { checkSandbox } from '../compute-host/workspaces/sandbox-check.ts'
import { createSession, createWorkspace } from './support/api-fixtures.ts'
import { markRoles, postChat, roleOf, toolResultsOf } from './support/chat.ts'
import type { Reply } from './support/scripted-gateway.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { readUiStream } from './support/ui-stream.ts'

const sandbox = await checkSandbox()

describe('per-turn undo', () => {
  let stack: TestStack
  let url: string
  let dir: string
  let repo: string
  let outside: string
  let workspaceId: string
  before(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'popagent-undo-')))
    repo = join(dir, 'root', 'proj')
    outside = join(dir, 'outside')
    await mkdir(join(repo, 'src'), { recursive: true })
    await mkdir(join(repo, '.git'))
    await mkdir(outside)
    for (const name of ['a', 'b', 'c', 'd', 'e']) {
      await writeFile(join(repo, 'src', `${name}.txt`), `${name} line 1\n${name} line 2\n`)
    }
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
    // The store's cleanup and every recording ran without a warning.
    const warned = stack.logs.filter((l) =>
      /^turn (store|snapshot|changes)/.test(String(l.message)),
    )
    assert.deepEqual(warned, [])
    await stack.stop()
    await rm(dir, { recursive: true, force: true })
  })

  /** Runs one turn whose implementer answers from `script` (keyed by tool results so far). */
  async function turn(
    sessionId: string,
    script: Record<number, Reply | (() => Reply)>,
  ): Promise<string> {
    stack.gateway.respondWith((r) => {
      const done = toolResultsOf(r).length
      if (roleOf(r) === 'orchistrator') {
        return done === 0
          ? { toolCalls: [{ name: 'agent-implementer', arguments: { prompt: 'change it' } }] }
          : { text: 'done' }
      }
      if (roleOf(r) === 'implementer') {
        const entry = script[done] ?? { text: 'implemented' }
        return typeof entry === 'function' ? entry() : entry
      }
      return { text: 'n/a' }
    })
    try {
      const chunks = await readUiStream(
        await postChat(url, { sessionId, workspaceId, model: 'remote/a', text: 'Change files' }),
      )
      const meta = chunks.find((c) => c.type === 'message-metadata' && c.messageMetadata?.turnId)
      return meta.messageMetadata.turnId as string
    } finally {
      stack.gateway.respondWith(undefined)
    }
  }

  const api = (path: string, init?: RequestInit) => stack.edge().request(`/api${path}`, init)
  const changes = async (sessionId: string, turnId: string) => {
    const res = await api(`/sessions/${sessionId}/turns/${turnId}/changes`)
    assert.equal(res.status, 200, await res.clone().text())
    return TurnChangesBody.parse(await res.json())
  }
  const undo = (sessionId: string, turnId: string) =>
    api(`/sessions/${sessionId}/turns/${turnId}/undo`, { method: 'POST' })
  const read = (name: string) => readFile(join(repo, 'src', name), 'utf8')
  const edit = (name: string) => ({
    name: 'workspace-edit',
    arguments: {
      path: `src/${name}`,
      old_string: `${name[0]} line 1`,
      new_string: `${name[0]} AGENT`,
    },
  })
  const readCall = (name: string) => ({
    name: 'workspace-read',
    arguments: { path: `src/${name}` },
  })

  test('undo restores the agent’s files and refuses the one the user edited since', async () => {
    const sessionId = await createSession(stack.edge(), workspaceId)
    const turnId = await turn(sessionId, {
      0: { toolCalls: [readCall('a.txt'), readCall('b.txt'), readCall('c.txt')] },
      3: {
        toolCalls: [
          edit('a.txt'),
          edit('b.txt'),
          edit('c.txt'),
          { name: 'workspace-write', arguments: { path: 'src/new.txt', content: 'brand new\n' } },
        ],
      },
    })
    assert.equal(await read('a.txt'), 'a AGENT\na line 2\n')
    assert.equal(await read('new.txt'), 'brand new\n')

    const listed = await changes(sessionId, turnId)
    assert.equal(listed.state, 'recorded')
    assert.deepEqual(
      listed.files.map((f) => [f.path, f.change, f.undoable]),
      [
        ['src/a.txt', 'modified', true],
        ['src/b.txt', 'modified', true],
        ['src/c.txt', 'modified', true],
        ['src/new.txt', 'created', true],
      ],
    )
    assert.match(
      listed.files[0]!.diff ?? '',
      /^--- a\/src\/a\.txt\n\+\+\+ b\/src\/a\.txt\n@@ -1,2 \+1,2 @@\n-a line 1\n\+a AGENT\n a line 2\n$/,
    )

    // The user edits one of the agent's files after the turn.
    await writeFile(join(repo, 'src', 'b.txt'), 'b USER\n')
    const again = await changes(sessionId, turnId)
    const b = again.files.find((f) => f.path === 'src/b.txt')!
    assert.equal(b.undoable, false)
    assert.match(b.reason ?? '', /changed after the agent/)

    const res = await undo(sessionId, turnId)
    assert.equal(res.status, 200, await res.clone().text())
    const result = UndoResult.parse(await res.json())
    assert.deepEqual(
      result.files.map((f) => [f.path, f.outcome]),
      [
        ['src/a.txt', 'restored'],
        ['src/b.txt', 'refused'],
        ['src/c.txt', 'restored'],
        ['src/new.txt', 'removed'],
      ],
    )
    assert.match(result.files[1]!.reason ?? '', /does not overwrite/)
    assert.equal(await read('a.txt'), 'a line 1\na line 2\n')
    assert.equal(await read('c.txt'), 'c line 1\nc line 2\n')
    assert.equal(await read('b.txt'), 'b USER\n')
    assert.equal(existsSync(join(repo, 'src', 'new.txt')), false)
    // Nothing of popagent's in the user's git directory.
    assert.deepEqual(await readdir(join(repo, '.git')), [])

    // Undo runs once.
    const second = await undo(sessionId, turnId)
    assert.equal(second.status, 409)
    assert.match(ErrorResponse.parse(await second.json()).error.message, /already undone/)
    assert.equal(await read('b.txt'), 'b USER\n')
    const after = await changes(sessionId, turnId)
    assert.equal(after.state, 'undone')
    assert.equal(after.undo!.length, 4)
  })

  test('a file replaced by a link to outside after the turn is refused; nothing is written outside', async () => {
    const sessionId = await createSession(stack.edge(), workspaceId)
    const turnId = await turn(sessionId, {
      0: { toolCalls: [readCall('e.txt')] },
      1: {
        toolCalls: [
          edit('e.txt'),
          { name: 'workspace-write', arguments: { path: 'src/made.txt', content: 'made\n' } },
        ],
      },
    })
    const agentText = await read('e.txt')
    // The same content outside, reached through a link at both names.
    await writeFile(join(outside, 'e.txt'), agentText)
    await writeFile(join(outside, 'made.txt'), 'made\n')
    await unlink(join(repo, 'src', 'e.txt'))
    await symlink(join(outside, 'e.txt'), join(repo, 'src', 'e.txt'))
    await unlink(join(repo, 'src', 'made.txt'))
    await symlink(join(outside, 'made.txt'), join(repo, 'src', 'made.txt'))

    const res = await undo(sessionId, turnId)
    assert.equal(res.status, 200, await res.clone().text())
    const result = UndoResult.parse(await res.json())
    assert.deepEqual(
      result.files.map((f) => [f.path, f.outcome]),
      [
        ['src/e.txt', 'refused'],
        ['src/made.txt', 'refused'],
      ],
    )
    assert.match(result.files[0]!.reason ?? '', /symbolic link/)
    assert.equal(await readFile(join(outside, 'e.txt'), 'utf8'), agentText)
    assert.equal(await readFile(join(outside, 'made.txt'), 'utf8'), 'made\n')
    assert.deepEqual((await readdir(outside)).sort(), ['e.txt', 'made.txt'])
  })

  test('edits the user makes during the turn are never taken for the agent’s', async () => {
    const sessionId = await createSession(stack.edge(), workspaceId)
    await writeFile(join(repo, 'src', 'd.txt'), 'd line 1\nd line 2\n')
    await writeFile(join(repo, 'src', 'e.txt'), 'e line 1\ne line 2\n')
    const userEdits = (reply: Reply, edit: () => void) => () => {
      edit()
      return reply
    }
    const turnId = await turn(sessionId, {
      0: { toolCalls: [readCall('d.txt'), readCall('e.txt')] },
      2: { toolCalls: [edit('d.txt')] },
      // Between the agent's writes, the user edits e.txt (untouched by the agent) and d.txt.
      3: userEdits({ toolCalls: [readCall('d.txt')] }, () => {
        writeFileSync(join(repo, 'src', 'e.txt'), 'e USER DURING\n')
        writeFileSync(join(repo, 'src', 'd.txt'), 'd AGENT\nd USER DURING\n')
      }),
      4: {
        toolCalls: [
          {
            name: 'workspace-edit',
            arguments: { path: 'src/d.txt', old_string: 'd AGENT', new_string: 'd AGENT AGAIN' },
          },
        ],
      },
    })
    const listed = await changes(sessionId, turnId)
    assert.deepEqual(
      listed.files.map((f) => [f.path, f.undoable]),
      [['src/d.txt', false]],
    )
    assert.match(listed.files[0]!.reason ?? '', /someone else during the turn/)
    const result = UndoResult.parse(await (await undo(sessionId, turnId)).json())
    assert.deepEqual(
      result.files.map((f) => [f.path, f.outcome]),
      [['src/d.txt', 'refused']],
    )
    assert.equal(await read('e.txt'), 'e USER DURING\n')
    assert.equal(await read('d.txt'), 'd AGENT AGAIN\nd USER DURING\n')
  })

  test('a turn a stopped host left while recording is reported failed and cannot be undone', async () => {
    const sessionId = await createSession(stack.edge(), workspaceId)
    const turnId = createId('turn')
    await TurnChanges.startTurn(stack.database.db, {
      turnId,
      sessionId,
      workspaceId,
      repository: 'proj',
    })
    const listed = await changes(sessionId, turnId)
    assert.equal(listed.state, 'failed')
    assert.match(listed.error ?? '', /stopped during the turn/)
    const res = await undo(sessionId, turnId)
    assert.equal(res.status, 409)
    assert.match(ErrorResponse.parse(await res.json()).error.message, /could not be recorded/)
  })

  test('a turn that wrote nothing has no changes; a turn of another session is not found', async () => {
    const sessionId = await createSession(stack.edge(), workspaceId)
    const turnId = await turn(sessionId, { 0: { toolCalls: [readCall('a.txt')] } })
    const listed = await changes(sessionId, turnId)
    assert.equal(listed.state, 'none')
    assert.deepEqual(listed.files, [])
    assert.equal((await undo(sessionId, turnId)).status, 404)
    assert.equal((await api(`/sessions/${sessionId}/turns/not-a-turn/changes`)).status, 400)
  })

  test(
    'a change made through the shell is undone',
    { skip: !sandbox.available && sandbox.reason },
    async () => {
      const sessionId = await createSession(stack.edge(), workspaceId)
      await writeFile(join(repo, 'src', 'd.txt'), 'd line 1\nd line 2\n')
      const turnId = await turn(sessionId, {
        0: {
          toolCalls: [
            {
              name: 'shell',
              arguments: {
                command: 'echo shell >> src/d.txt && rm src/c.txt && echo hi > src/sh.txt',
              },
            },
          ],
        },
      })
      assert.equal(await read('d.txt'), 'd line 1\nd line 2\nshell\n')
      const listed = await changes(sessionId, turnId)
      assert.deepEqual(
        listed.files.map((f) => [f.path, f.change]),
        [
          ['src/c.txt', 'deleted'],
          ['src/d.txt', 'modified'],
          ['src/sh.txt', 'created'],
        ],
      )
      const res = await undo(sessionId, turnId)
      const result = UndoResult.parse(await res.json())
      assert.deepEqual(
        result.files.map((f) => [f.path, f.outcome]),
        [
          ['src/c.txt', 'restored'],
          ['src/d.txt', 'restored'],
          ['src/sh.txt', 'removed'],
        ],
      )
      assert.equal(await read('d.txt'), 'd line 1\nd line 2\n')
      assert.equal(await read('c.txt'), 'c line 1\nc line 2\n')
      assert.equal(existsSync(join(repo, 'src', 'sh.txt')), false)
    },
  )

  test(
    'a file too large to keep is listed and refused; a fifo in the tree does not hold the snapshot',
    { skip: !sandbox.available && sandbox.reason },
    async () => {
      const sessionId = await createSession(stack.edge(), workspaceId)
      await writeFile(join(repo, 'src', 'big.bin'), Buffer.alloc(2 * 1024 * 1024, 1))
      execFileSync('mkfifo', [join(repo, 'src', 'pipe')])
      try {
        const turnId = await turn(sessionId, {
          0: {
            toolCalls: [
              {
                name: 'shell',
                arguments: { command: 'printf x >> src/big.bin && echo ok > src/small.txt' },
              },
            ],
          },
        })
        const listed = await changes(sessionId, turnId)
        assert.deepEqual(
          listed.files.map((f) => [f.path, f.change, f.undoable]),
          [
            ['src/big.bin', 'modified', false],
            ['src/small.txt', 'created', true],
          ],
        )
        assert.match(listed.files[0]!.reason ?? '', /too large/)
        const result = UndoResult.parse(await (await undo(sessionId, turnId)).json())
        assert.deepEqual(
          result.files.map((f) => [f.path, f.outcome]),
          [
            ['src/big.bin', 'refused'],
            ['src/small.txt', 'removed'],
          ],
        )
        assert.equal((await readFile(join(repo, 'src', 'big.bin'))).length, 2 * 1024 * 1024 + 1)
      } finally {
        await unlink(join(repo, 'src', 'pipe'))
        await unlink(join(repo, 'src', 'big.bin'))
      }
    },
  )
})
