/**
 * The vault's storage and cipher, written once and run on real PostgreSQL
 * (secrets-vault.postgres.test.ts) and the embedded database (secrets-vault.embedded.test.ts).
 * Every refusal is checked twice: it throws the named error, and neither its message nor its data
 * holds the value.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { eq, sql } from '../db/drizzle-orm.ts'
import type { Db } from '../db/index.ts'
import { secrets } from '../db/schema/index.ts'
import * as Secrets from '../runtime/secrets/index.ts'
import { openKeyring, type Keyring } from '../runtime/secrets/keyring.ts'

export type VaultSuiteContext = { db: Db; close: () => Promise<void> }

const newKey = () => randomBytes(32).toString('base64')
const value = (label: string) => `${label}-${randomBytes(12).toString('base64url')}-vault`

/** Fails unless `run` rejects with `code`, and the error says nothing of `secret`. */
async function refuses(run: () => Promise<unknown>, code: string, secret: string) {
  await assert.rejects(run, (error: Error & { code?: string; data?: unknown }) => {
    assert.equal(error.code, code, `expected ${code}, got ${error.code}: ${error.message}`)
    const said = JSON.stringify({ message: error.message, data: error.data })
    assert.ok(!said.includes(secret), 'the error quotes the value')
    return true
  })
}

export function vaultSuite(name: string, setup: () => Promise<VaultSuiteContext>) {
  describe(name, () => {
    let ctx: VaultSuiteContext
    let keyA: string
    let ring: Keyring
    before(async () => {
      ctx = await setup()
      keyA = newKey()
      ring = await openKeyring(keyA)
    })
    after(() => ctx.close())
    const row = async (id: string) =>
      (await ctx.db.select().from(secrets).where(eq(secrets.id, id)))[0]!

    test('a stored secret decrypts to its value, and its row holds no form of it', async () => {
      const secret = value('plain')
      const view = await Secrets.create(ctx.db, ring, { name: 'PLAIN', value: secret })
      assert.equal(view.version, 1)
      assert.equal(view.keyId, ring.current.id)
      const stored = await row(view.id)
      assert.equal(await Secrets.reveal(ring, stored), secret)
      const text = JSON.stringify(stored)
      for (const form of [
        secret,
        Buffer.from(secret).toString('base64'),
        Buffer.from(secret).toString('hex'),
      ])
        assert.ok(!text.includes(form), 'the row carries the value')
      assert.ok(!JSON.stringify(view).includes(secret))
    })

    test('a flipped byte in the ciphertext or the nonce fails as an integrity error', async () => {
      const secret = value('tamper')
      const view = await Secrets.create(ctx.db, ring, { name: 'TAMPER', value: secret })
      const stored = await row(view.id)
      const flip = (b64: string, at: number) => {
        const bytes = Buffer.from(b64, 'base64')
        bytes[at]! ^= 0x01
        return bytes.toString('base64')
      }
      await refuses(
        () => Secrets.reveal(ring, { ...stored, ciphertext: flip(stored.ciphertext, 0) }),
        'SECRET_INTEGRITY_ERROR',
        secret,
      )
      // The tag is the last 16 bytes.
      const last = Buffer.from(stored.ciphertext, 'base64').length - 1
      await refuses(
        () => Secrets.reveal(ring, { ...stored, ciphertext: flip(stored.ciphertext, last) }),
        'SECRET_INTEGRITY_ERROR',
        secret,
      )
      await refuses(
        () => Secrets.reveal(ring, { ...stored, nonce: flip(stored.nonce, 3) }),
        'SECRET_INTEGRITY_ERROR',
        secret,
      )
      // A tag cut to 12 bytes is refused, not checked with fewer bits.
      const short = Buffer.from(stored.ciphertext, 'base64').subarray(0, -4).toString('base64')
      await refuses(
        () => Secrets.reveal(ring, { ...stored, ciphertext: short }),
        'SECRET_INTEGRITY_ERROR',
        secret,
      )
      // Written in SQL, read back as a host would.
      await ctx.db
        .update(secrets)
        .set({ ciphertext: flip(stored.ciphertext, 5) })
        .where(eq(secrets.id, view.id))
      await refuses(
        async () => Secrets.reveal(ring, await row(view.id)),
        'SECRET_INTEGRITY_ERROR',
        secret,
      )
    })

    test('a ciphertext moved to another row, or left behind by a rename in SQL, does not decrypt', async () => {
      const first = value('first')
      const a = await Secrets.create(ctx.db, ring, { name: 'MOVE_A', value: first })
      const b = await Secrets.create(ctx.db, ring, { name: 'MOVE_B', value: value('second') })
      const rowA = await row(a.id)
      await ctx.db
        .update(secrets)
        .set({ nonce: rowA.nonce, ciphertext: rowA.ciphertext, keyId: rowA.keyId })
        .where(eq(secrets.id, b.id))
      await refuses(
        async () => Secrets.reveal(ring, await row(b.id)),
        'SECRET_INTEGRITY_ERROR',
        first,
      )
      await ctx.db.update(secrets).set({ name: 'MOVE_A_RENAMED' }).where(eq(secrets.id, a.id))
      await refuses(
        async () => Secrets.reveal(ring, await row(a.id)),
        'SECRET_INTEGRITY_ERROR',
        first,
      )
      // An older version's ciphertext cannot pose as the current one either.
      await ctx.db.update(secrets).set({ name: 'MOVE_A', version: 2 }).where(eq(secrets.id, a.id))
      await refuses(
        async () => Secrets.reveal(ring, await row(a.id)),
        'SECRET_INTEGRITY_ERROR',
        first,
      )
    })

    test('the wrong key fails: an unknown key id by name, a forged key id as an integrity error', async () => {
      const secret = value('wrongkey')
      const view = await Secrets.create(ctx.db, ring, { name: 'WRONG_KEY', value: secret })
      const other = await openKeyring(newKey())
      await refuses(
        async () => Secrets.reveal(other, await row(view.id)),
        'SECRET_KEY_UNKNOWN',
        secret,
      )
      await ctx.db.update(secrets).set({ keyId: other.current.id }).where(eq(secrets.id, view.id))
      await refuses(
        async () => Secrets.reveal(other, await row(view.id)),
        'SECRET_INTEGRITY_ERROR',
        secret,
      )
    })

    test('rotation bumps the version and re-seals; the old value is gone from the row', async () => {
      const before = value('before')
      const after = value('after')
      const view = await Secrets.create(ctx.db, ring, { name: 'ROTATED', value: before })
      const rotated = await Secrets.rotate(ctx.db, ring, view.id, after)
      assert.equal(rotated.version, 2)
      assert.notEqual(rotated.fingerprint, view.fingerprint)
      assert.equal(await Secrets.reveal(ring, await row(view.id)), after)
    })

    test('rekey re-encrypts every row under the new key; the old key alone then opens none', async () => {
      const oldKey = newKey()
      const oldRing = await openKeyring(oldKey)
      const values = new Map<string, string>()
      for (let i = 0; i < 7; i++) {
        const v = value(`rekey${i}`)
        const view = await Secrets.create(ctx.db, oldRing, { name: `REKEY_${i}`, value: v })
        values.set(view.id, v)
      }
      const newKeyText = newKey()
      // The rows of earlier tests were written with keyA, these with oldKey: both are previous.
      const all = await openKeyring(newKeyText, [keyA, oldKey])
      // Rows earlier tests broke on purpose are set aside: only readable rows are rekeyed.
      await ctx.db
        .delete(secrets)
        .where(sql`${secrets.name} in ('TAMPER', 'MOVE_A', 'MOVE_B', 'WRONG_KEY')`)
      let total = 0
      for (let done; (done = await Secrets.rekeyBatch(ctx.db, all, 3)) > 0;) total += done
      assert.ok(total >= 7, `rekeyed ${total}`)
      const rows = await Secrets.allRows(ctx.db)
      assert.ok(rows.every((r) => r.keyId === all.current.id))
      const fresh = await openKeyring(newKeyText)
      for (const [id, v] of values) assert.equal(await Secrets.reveal(fresh, await row(id)), v)
      const [someId, someValue] = [...values][0]!
      await refuses(
        async () => Secrets.reveal(oldRing, await row(someId)),
        'SECRET_KEY_UNKNOWN',
        someValue,
      )
    })

    test('every encryption takes a fresh nonce', async () => {
      const { seal } = await import('../runtime/secrets/cipher.ts')
      const nonces = new Set<string>()
      for (let i = 0; i < 2_000; i++)
        nonces.add(
          (await seal(ring.current, { id: 'sec_x', name: 'N', version: 1 }, 'same-value-1234'))
            .nonce,
        )
      assert.equal(nonces.size, 2_000)
    })

    test('a name is unique and bindings keep only normalised HTTPS origins', async () => {
      const view = await Secrets.create(ctx.db, ring, { name: 'BOUND', value: value('bound') })
      await assert.rejects(Secrets.create(ctx.db, ring, { name: 'BOUND', value: value('x') }), {
        code: 'SECRET_NAME_TAKEN',
      })
      const bound = await Secrets.bind(ctx.db, view.id, {
        origins: [
          'https://API.example.com:443/path?q=1',
          'https://example.com:8443',
          'https://bücher.example',
        ],
      })
      assert.deepEqual(bound.origins, [
        'https://api.example.com',
        'https://example.com:8443',
        'https://xn--bcher-kva.example',
      ])
      for (const bad of [
        'http://example.com',
        'https://user:pw@example.com',
        'https://example.com.',
        'https://*.example.com',
        'data:text/plain,x',
        'not a url',
      ])
        await assert.rejects(
          Secrets.bind(ctx.db, view.id, { origins: [bad] }),
          { code: 'ORIGIN_REFUSED' },
          bad,
        )
      // A refused set changes nothing.
      assert.equal((await Secrets.get(ctx.db, view.id)).origins.length, 3)
      assert.deepEqual((await Secrets.bind(ctx.db, view.id, { origins: [] })).origins, [])
      await Secrets.remove(ctx.db, view.id)
      await assert.rejects(Secrets.get(ctx.db, view.id), { code: 'SECRET_NOT_FOUND' })
    })
  })
}
