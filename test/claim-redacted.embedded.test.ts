/**
 * The chat turn's claim against the vault, on the embedded database with two hosts' vaults: the
 * claim keeps the user's message, so it is made only with the message redacted by the secrets the
 * vault holds. A host that has not caught up with another host's write is refused by the claim's
 * own statement, catches up, redacts again and claims; a refusal the vault does not explain (a
 * turn runs in the session) stands after the catch-up.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { sql } from '../db/drizzle-orm.ts'
import { rowsOf } from '../db/rows.ts'
import { claimRedacted } from '../compute-host/runs/claim-redacted.ts'
import { createLiveTurns } from '../compute-host/runs/live-turns.ts'
import { openVault, type Vault } from '../compute-host/secrets/vault.ts'
import { createSecretRedactor, type Redactor } from '../runtime/redaction.ts'
import * as Sessions from '../runtime/sessions/index.ts'
import type { ChatRequest } from '../runtime/contracts/chat.ts'
import { userMessage } from './support/chat.ts'
import { createEmbeddedDatabase } from './support/database.ts'
import { quietLog } from './support/stack.ts'

describe('a chat turn claims with the vault as it stands', () => {
  let database: Awaited<ReturnType<typeof createEmbeddedDatabase>>
  const env = {
    POPAGENT_SECRET_KEY: randomBytes(32).toString('base64'),
    POPAGENT_SECRET_KEYS_PREVIOUS: [],
  }
  // Host A stores secrets; host B runs the turns and has not caught up with A's writes.
  let vaultA: Vault
  let vaultB: Vault
  let redactorB: Redactor
  before(async () => {
    database = await createEmbeddedDatabase()
    const db = database.db
    vaultA = await openVault({ env, db, redactor: createSecretRedactor() })
    redactorB = createSecretRedactor()
    vaultB = await openVault({ env, db, redactor: redactorB })
  })
  after(() => database.close())

  const liveB = () => createLiveTurns({ db: database.db, log: quietLog(), host: 'host-b:1' })
  const chatMessage = (text: string) => userMessage(text) as ChatRequest['message']
  const keptMessages = async () =>
    rowsOf<{ message: unknown }>(
      await database.db.execute(sql`select message from popagent_live_turns`),
    ).map((r) => JSON.stringify(r.message))

  test('a secret stored on another host is redacted from the kept message: the stale claim is refused, the host catches up and claims', async () => {
    const value = `sk-live-${randomBytes(12).toString('hex')}`
    await vaultA.create({ name: 'SHARED_TOKEN', value })
    assert.equal(vaultB.known()?.size, 0, 'host B has not caught up')
    const { id: sessionId, workspaceId } = await Sessions.create(database.db, {})
    const { claimed, message } = await claimRedacted(
      { vault: vaultB, redactor: redactorB },
      liveB(),
      {
        sessionId,
        workspaceId,
        turnId: 'trn_b1',
        message: chatMessage(`mine is ${value}`),
      },
    ).claiming
    try {
      assert.equal(vaultB.known()?.size, 1, 'host B caught up on the refusal')
      assert.ok(!JSON.stringify(message).includes(value), 'the turn reads the message redacted')
      const kept = await keptMessages()
      assert.equal(kept.length, 1)
      assert.ok(!kept[0]!.includes(value), 'the mark kept the pasted secret')
      assert.match(kept[0]!, /mine is \[REDACTED/)
    } finally {
      await claimed.release()
    }
  })

  test('a session with a turn running elsewhere is refused after the catch-up changes nothing', async () => {
    const { id: sessionId, workspaceId } = await Sessions.create(database.db, {})
    await database.db
      .execute(sql`insert into popagent_live_turns (session_id, turn_id, host, message)
      values (${sessionId}, 'trn_a1', 'host-a:1', ${JSON.stringify(userMessage('first'))}::jsonb)`)
    try {
      await assert.rejects(
        claimRedacted({ vault: vaultB, redactor: redactorB }, liveB(), {
          sessionId,
          workspaceId,
          turnId: 'trn_b2',
          message: chatMessage('second'),
        }).claiming,
        (error: Error & { code?: string }) => error.code === 'TURN_IN_PROGRESS',
      )
      const kept = await keptMessages()
      assert.equal(kept.length, 1)
      assert.match(kept[0]!, /"first"/, 'the running turn keeps its mark')
    } finally {
      await database.db.execute(sql`delete from popagent_live_turns`)
    }
  })
})
