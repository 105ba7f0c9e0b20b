/**
 * Per-turn undo keeps the bytes of repository files, and a repository can hold a secret (a `.env`
 * its owner keeps there). With a real stack: a turn rewrites such a file; neither the store's
 * rows nor the write-ahead log hold any form of the secret, the diff still shows, and undo puts
 * the file back byte for byte. A row kept in clear by an earlier popagent still restores, and is
 * sealed when a later snapshot keeps the same content; a row
 * swapped for another's, or read by a host without the key, is refused and nothing is written.
 * A host without the key keeps nothing and says why.
 */
import { TurnChanges as TurnChangesBody, UndoResult } from '../runtime/contracts/turn-changes.ts'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { eq } from '../db/drizzle-orm.ts'
import { turnBlobs } from '../db/schema/index.ts'
import * as TurnChanges from '../runtime/turn-changes/index.ts'
import type { StoredChange } from '../runtime/turn-changes/index.ts'
import { undoTurn } from '../compute-host/undo/turn-undo.ts'
import { turnUndoRecorder } from '../compute-host/undo/turn-recorder.ts'
import { hashOf } from '../compute-host/undo/tree-state.ts'
import { createLogger } from '../compute-host/log.ts'
import { createSession, createWorkspace } from './support/api-fixtures.ts'
import { markRoles, postChat, roleOf, toolResultsOf } from './support/chat.ts'
import type { Reply } from './support/scripted-gateway.ts'
import { leaksIn } from './support/secret-forms.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { readUiStream } from './support/ui-stream.ts'
import { openWalWindow } from './support/wal-scan.ts'

describe('per-turn undo keeps contents encrypted', () => {
  let stack: TestStack
  let url: string
  let dir: string
  let repo: string
  let workspaceId: string
  before(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'popagent-undo-enc-')))
    repo = join(dir, 'root', 'proj')
    await mkdir(join(repo, '.git'), { recursive: true })
    stack = await startTestStack({
      models: [{ id: 'remote/a' }],
      hostEnv: {
        POPAGENT_WORKSPACE_ROOT: join(dir, 'root'),
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

  /** One turn whose implementer reads `path`, then writes `content` to it. */
  async function rewrite(sessionId: string, path: string, content: string): Promise<string> {
    const script: Record<number, Reply> = {
      0: { toolCalls: [{ name: 'workspace-read', arguments: { path } }] },
      1: { toolCalls: [{ name: 'workspace-write', arguments: { path, content } }] },
    }
    stack.gateway.respondWith((r) => {
      const done = toolResultsOf(r).length
      if (roleOf(r) === 'orchistrator') {
        return done === 0
          ? { toolCalls: [{ name: 'agent-implementer', arguments: { prompt: 'change it' } }] }
          : { text: 'done' }
      }
      if (roleOf(r) === 'implementer') return script[done] ?? { text: 'implemented' }
      return { text: 'n/a' }
    })
    try {
      const chunks = await readUiStream(
        await postChat(url, { sessionId, workspaceId, model: 'remote/a', text: 'Change it' }),
      )
      const meta = chunks.find((c) => c.type === 'message-metadata' && c.messageMetadata?.turnId)
      return meta.messageMetadata.turnId as string
    } finally {
      stack.gateway.respondWith(undefined)
    }
  }

  const api = (path: string, init?: RequestInit) => stack.edge().request(`/api${path}`, init)
  const undo = async (sessionId: string, turnId: string) => {
    const res = await api(`/sessions/${sessionId}/turns/${turnId}/undo`, { method: 'POST' })
    assert.equal(res.status, 200, await res.clone().text())
    return UndoResult.parse(await res.json())
  }
  const beforeHash = async (sessionId: string, turnId: string) => {
    // The changes route waits for the turn's recording, which ends after its stream.
    assert.equal((await api(`/sessions/${sessionId}/turns/${turnId}/changes`)).status, 200)
    const row = await TurnChanges.getTurn(stack.database.db, sessionId, turnId)
    const [change] = (row?.files ?? []) as StoredChange[]
    assert.equal(change?.before?.kind, 'file')
    return change.before.hash
  }
  const allContents = async () =>
    (await stack.database.db.select({ content: turnBlobs.content }).from(turnBlobs)).map(
      (r) => r.content,
    )

  test('a secret in a repository file never reaches the store or the log in clear; undo restores it', async () => {
    const canary = `undo-canary-${randomBytes(16).toString('hex')}`
    const later = `undo-later-${randomBytes(16).toString('hex')}`
    // Bytes a text round trip could change: CRLF, no final newline, a multi-byte character.
    const original = Buffer.from(`# keep é\r\nAPI_TOKEN=${canary}\r\nOTHER=1`, 'utf8')
    await writeFile(join(repo, '.env'), original)
    const sessionId = await createSession(stack.edge(), workspaceId)
    const wal = await openWalWindow(stack.database.url)
    let turnId: string
    let logged: string
    try {
      turnId = await rewrite(sessionId, '.env', `API_TOKEN=${later}\n`)
      logged = await wal.text()
    } finally {
      await wal.close()
    }
    assert.equal(await readFile(join(repo, '.env'), 'utf8'), `API_TOKEN=${later}\n`)

    const contents = await allContents()
    assert.ok(contents.length >= 2, 'the before and after contents are kept')
    assert.deepEqual(leaksIn(contents.join('\n'), [canary, later]), [])
    // The scan sees the store's writes: each row's key, the content's hash, is in the log.
    assert.ok(logged.includes(hashOf(original)), 'the log window holds the kept row')
    assert.deepEqual(leaksIn(logged, [canary, later]), [], 'the write-ahead log never held them')
    for (const content of contents) assert.match(content, /^v1:[A-Za-z0-9+/]+=*$/)

    // The diff is still shown from the encrypted contents.
    const res = await api(`/sessions/${sessionId}/turns/${turnId}/changes`)
    const listed = TurnChangesBody.parse(await res.json())
    assert.equal(listed.files[0]?.path, '.env')
    assert.match(listed.files[0]?.diff ?? '', new RegExp(`\\+API_TOKEN=${later}`))

    const result = await undo(sessionId, turnId)
    assert.deepEqual(
      result.files.map((f) => [f.path, f.outcome]),
      [['.env', 'restored']],
    )
    assert.deepEqual(await readFile(join(repo, '.env')), original)
  })

  test('a content kept in clear by an earlier popagent still restores, byte for byte', async () => {
    const original = Buffer.from('legacy\r\nbytes é\n', 'utf8')
    await writeFile(join(repo, 'legacy.txt'), original)
    const sessionId = await createSession(stack.edge(), workspaceId)
    const turnId = await rewrite(sessionId, 'legacy.txt', 'changed\n')
    const hash = await beforeHash(sessionId, turnId)
    // The row as the code before encryption wrote it: the content's plain base64.
    await stack.database.db
      .update(turnBlobs)
      .set({ content: original.toString('base64') })
      .where(eq(turnBlobs.hash, hash))

    const result = await undo(sessionId, turnId)
    assert.deepEqual(
      result.files.map((f) => [f.path, f.outcome]),
      [['legacy.txt', 'restored']],
    )
    assert.deepEqual(await readFile(join(repo, 'legacy.txt')), original)

    // A later snapshot keeping the same content replaces the plain row with the sealed one.
    const later = await createSession(stack.edge(), workspaceId)
    const again = await rewrite(later, 'legacy.txt', 'changed again\n')
    assert.equal(await beforeHash(later, again), hash)
    const [row] = await stack.database.db
      .select({ content: turnBlobs.content })
      .from(turnBlobs)
      .where(eq(turnBlobs.hash, hash))
    assert.match(row!.content, /^v1:/)
    assert.deepEqual(leaksIn(row!.content, ['legacy\r\nbytes é\n']), [])
    assert.deepEqual(
      (await undo(later, again)).files.map((f) => f.outcome),
      ['restored'],
    )
    assert.deepEqual(await readFile(join(repo, 'legacy.txt')), original)
  })

  test('a row swapped for another’s is refused; the file is left as it is', async () => {
    await writeFile(join(repo, 'one.txt'), 'one\n')
    await writeFile(join(repo, 'two.txt'), 'two\n')
    const sessionId = await createSession(stack.edge(), workspaceId)
    const first = await rewrite(sessionId, 'one.txt', 'one changed\n')
    // Its own session: a turn's script counts the tool results of the whole conversation.
    const otherSession = await createSession(stack.edge(), workspaceId)
    const second = await rewrite(otherSession, 'two.txt', 'two changed\n')
    const one = await beforeHash(sessionId, first)
    const two = await beforeHash(otherSession, second)
    const [twoRow] = await stack.database.db
      .select({ content: turnBlobs.content })
      .from(turnBlobs)
      .where(eq(turnBlobs.hash, two))
    // A valid ciphertext, under the right key, of another file.
    await stack.database.db
      .update(turnBlobs)
      .set({ content: twoRow!.content })
      .where(eq(turnBlobs.hash, one))

    const result = await undo(sessionId, first)
    assert.equal(result.files[0]?.outcome, 'refused')
    assert.match(result.files[0]?.reason ?? '', /cannot be decrypted/)
    assert.equal(await readFile(join(repo, 'one.txt'), 'utf8'), 'one changed\n')
  })

  test('a host without the key refuses to open encrypted contents and keeps none of its own', async () => {
    await writeFile(join(repo, 'keyless.txt'), 'kept\n')
    const sessionId = await createSession(stack.edge(), workspaceId)
    const turnId = await rewrite(sessionId, 'keyless.txt', 'changed\n')
    const db = stack.database.db
    const workspaceRoot = join(dir, 'root')
    // The undo of a host that has no key: the encrypted row is not opened, nothing is written.
    const result = await undoTurn(
      { db, workspaceRoot, redact: (text) => text },
      { sessionId, turnId },
    )
    assert.equal(result.files[0]?.outcome, 'refused')
    assert.match(result.files[0]?.reason ?? '', /no POPAGENT_SECRET_KEY to open it/)
    assert.equal(await readFile(join(repo, 'keyless.txt'), 'utf8'), 'changed\n')

    // Its recorder keeps no content in clear: the turn is recorded as failed, with why.
    const rows = (await allContents()).length
    const keyless = `turn_keyless_${randomBytes(6).toString('hex')}`
    const lines: Record<string, unknown>[] = []
    const log = createLogger({ write: (line) => void lines.push(JSON.parse(line)) })
    const recorder = turnUndoRecorder(
      { db, workspaceRoot, log },
      { turnId: keyless, sessionId, workspaceId },
    )
    const hooks = recorder.toolHooks({ id: 'implementer', name: 'implementer' })
    await hooks.beforeToolCall?.({
      toolName: 'workspace-write',
      input: { path: 'keyless.txt' },
    } as never)
    await recorder.observer({ type: 'run-end' } as never)
    assert.equal((await allContents()).length, rows)
    const row = await TurnChanges.getTurn(db, sessionId, keyless)
    assert.equal(row?.state, 'failed')
    assert.match(row?.error ?? '', /no POPAGENT_SECRET_KEY to encrypt/)
    assert.deepEqual(
      lines.map((l) => l.message),
      ['turn snapshot failed; this turn cannot be undone'],
    )
  })
})
