/**
 * `popagent secrets-rekey` as an operator runs it: rows written under an old key are re-encrypted
 * under POPAGENT_SECRET_KEY (the old key given in POPAGENT_SECRET_KEYS_PREVIOUS), after which the
 * new key alone opens every row and the old key alone opens none.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import * as Secrets from '../runtime/secrets/index.ts'
import { openKeyring } from '../runtime/secrets/keyring.ts'
import { createDatabaseOnServer, createTestDatabase } from './support/database.ts'
import { runCli } from './support/process.ts'

test('secrets-rekey moves every row to the new key; a second run finds nothing to do', async () => {
  const database = await createTestDatabase()
  const observability = await createDatabaseOnServer()
  try {
    const oldKey = randomBytes(32).toString('base64')
    const newKey = randomBytes(32).toString('base64')
    const old = await openKeyring(oldKey)
    const values = new Map<string, string>()
    for (let i = 0; i < 5; i++) {
      const value = `rekey-cli-${randomBytes(10).toString('hex')}`
      values.set((await Secrets.create(database.db, old, { name: `CLI_${i}`, value })).id, value)
    }
    const env = {
      DATABASE_URL: database.url,
      OBSERVABILITY_DATABASE_URL: observability.url,
      POPAGENT_SECRET_KEY: newKey,
      POPAGENT_SECRET_KEYS_PREVIOUS: oldKey,
    }
    const run = runCli(['secrets-rekey'], env)
    assert.equal(await run.exited, 0, run.output())
    const fresh = await openKeyring(newKey)
    assert.match(
      run.output(),
      new RegExp(`re-encrypted 5 secret\\(s\\) under key ${fresh.current.id}`),
    )
    for (const line of run.output().split('\n'))
      for (const v of [...values.values(), oldKey, newKey]) assert.ok(!line.includes(v), line)

    for (const row of await Secrets.allRows(database.db)) {
      assert.equal(row.keyId, fresh.current.id)
      assert.equal(await Secrets.reveal(fresh, row), values.get(row.id))
      await assert.rejects(Secrets.reveal(old, row), { code: 'SECRET_KEY_UNKNOWN' })
    }
    const again = runCli(['secrets-rekey'], env)
    assert.equal(await again.exited, 0, again.output())
    assert.match(again.output(), /re-encrypted 0 secret\(s\)/)
  } finally {
    await database.drop()
    await observability.drop()
  }
})
