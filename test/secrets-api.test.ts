/**
 * /api/secrets on a real stack (PostgreSQL, compute host holding the vault key, edge): values go
 * in and never come out, in any encoding, on any route or error; a stored value is redacted in the
 * host's log from the moment it is stored and forgotten when deleted; the host refuses to start
 * with a key that does not open the stored rows.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, test } from 'node:test'
import { createLogger } from '../compute-host/log.ts'
import { startComputeHost } from '../compute-host/main.ts'
import { openVault } from '../compute-host/secrets/vault.ts'
import { createTestApp, json } from './support/app.ts'
import { userMessage } from './support/chat.ts'
import { readUiStream, streamedText } from './support/ui-stream.ts'
import { createSecretRedactor } from '../runtime/redaction.ts'
import { leakForms, leaksIn } from './support/secret-forms.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import type { ClientResponse } from 'hono/client'
import type { SuccessStatusCode } from 'hono/utils/http-status'
import { errorJson, okJson, typedClient, type Client, type OkBody } from './support/typed-client.ts'

const KEY = randomBytes(32).toString('base64')
// Characters that every encoding treats differently: quote, backslash, slash, plus, space, ü.
const canary = () => `canary "q\\ /+ü ${randomBytes(9).toString('base64url')} end`
let stack: TestStack
let api: Client['api']
const seen: string[] = []
const values: string[] = []

/** Reads every answer as text, so the scan sees headers and bodies exactly as a client does. */
async function text(res: Response | Promise<Response>): Promise<{ status: number; body: string }> {
  const r = await res
  const body = await r.text()
  seen.push(body, JSON.stringify([...r.headers]))
  return { status: r.status, body }
}

/** okJson, keeping the body and headers for the scan. */
async function ok<R extends ClientResponse<unknown, number, 'json'>>(
  res: R,
  status: SuccessStatusCode,
): Promise<OkBody<R>> {
  const body = await okJson(res, status)
  seen.push(JSON.stringify(body), JSON.stringify([...res.headers]))
  return body
}

before(async () => {
  stack = await startTestStack({ hostEnv: { POPAGENT_SECRET_KEY: KEY } })
  api = typedClient(stack.edge()).api
})
after(() => stack.stop())

test('the scan finds a planted value in every form, so a clean result means something', () => {
  const value = canary()
  for (const form of leakForms(value)) {
    assert.deepEqual(leaksIn(`before ${form} after`, [value]).length > 0, true, form)
  }
  // Basic auth: the value at byte offset 5 of an encoded `user:value`.
  const basic = Buffer.from(`user:${value}`).toString('base64')
  assert.ok(leaksIn(basic, [value]).length > 0)
})

test('create, list, rotate, bind and delete never answer with the value', async () => {
  const first = canary()
  const second = canary()
  values.push(first, second)
  const created = await api.secrets.$post({ json: { name: 'DEPLOY_TOKEN', value: first } })
  const view = await ok(created, 201)
  assert.equal(view.name, 'DEPLOY_TOKEN')
  assert.equal(view.version, 1)
  assert.match(view.fingerprint, /^[0-9a-f]{12}$/)
  assert.equal(created.headers.get('cache-control'), 'no-store')

  const listed = await api.secrets.$get()
  assert.equal((await ok(listed, 200)).secrets.length, 1)

  const rotated = await api.secrets[':id'].rotate.$post({
    param: { id: view.id },
    json: { value: second },
  })
  const rotatedView = await ok(rotated, 200)
  assert.equal(rotatedView.version, 2)
  assert.notEqual(rotatedView.fingerprint, view.fingerprint)

  const bound = await api.secrets[':id'].bindings.$put({
    param: { id: view.id },
    json: { origins: ['https://deploy.example.com/hook', 'https://deploy.example.com:8443'] },
  })
  assert.deepEqual((await ok(bound, 200)).origins, [
    'https://deploy.example.com',
    'https://deploy.example.com:8443',
  ])
  const refusedOrigin = await api.secrets[':id'].bindings.$put({
    param: { id: view.id },
    json: { origins: ['http://deploy.example.com'] },
  })
  assert.equal((await errorJson(refusedOrigin, 422)).error.code, 'ORIGIN_REFUSED')

  // Refusals: a duplicate name, a value too short (quoted nowhere), unknown fields.
  const again = await text(api.secrets.$post({ json: { name: 'DEPLOY_TOKEN', value: first } }))
  assert.equal(again.status, 409)
  const short = `s${randomBytes(3).toString('hex')}`
  values.push(short)
  const tooShort = await text(api.secrets.$post({ json: { name: 'SHORT', value: short } }))
  assert.equal(tooShort.status, 400)
  assert.ok(!tooShort.body.includes(short))
  assert.match(tooShort.body, /at least 12 bytes/)
  const extra = await text(
    stack.edge().request('/api/secrets', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'EXTRA', value: first, reveal: true }),
    }),
  )
  assert.equal(extra.status, 400)

  const deleted = await text(api.secrets[':id'].$delete({ param: { id: view.id } }))
  assert.equal(deleted.status, 200)
  const gone = await text(api.secrets[':id'].$delete({ param: { id: view.id } }))
  assert.equal(gone.status, 404)
  assert.deepEqual(leaksIn(seen.join('\n'), [first, second]), [])
})

test("a stored value is redacted in the host's log from the moment it is stored, and forgotten on delete", async () => {
  const value = canary()
  const created = await okJson(await api.secrets.$post({ json: { name: 'LOGGED', value } }), 201)
  const log = stack.host.resources.log
  const encoded = leakForms(value)
  log.info('probe', {
    all: encoded.join(' | '),
    basic: Buffer.from(`u:${value}`).toString('base64'),
  })
  assert.deepEqual(leaksIn(JSON.stringify(stack.logs.at(-1)), [value]), [])
  assert.match(JSON.stringify(stack.logs.at(-1)), /\[REDACTED\]/)

  // Rotated: the new value and the old one are both redacted.
  const next = canary()
  await okJson(
    await api.secrets[':id'].rotate.$post({ param: { id: created.id }, json: { value: next } }),
    200,
  )
  log.info('probe', { old: value, new: next })
  assert.deepEqual(leaksIn(JSON.stringify(stack.logs.at(-1)), [value, next]), [])

  await okJson(await api.secrets[':id'].$delete({ param: { id: created.id } }), 200)
  log.info('probe', { value: next })
  assert.ok(stack.logs.at(-1)?.value === next, 'a deleted value is no longer redacted')
  // Every log line up to the delete, and the request logs, held no value.
  assert.deepEqual(leaksIn(JSON.stringify(stack.logs.slice(0, -1)), [...values, value]), [])
})

test('a restarted host redacts the stored values at once; the wrong key refuses to start', async () => {
  const value = canary()
  await okJson(await api.secrets.$post({ json: { name: 'SURVIVES', value } }), 201)
  await stack.restartHost()
  stack.host.resources.log.info('probe', { value })
  assert.deepEqual(leaksIn(JSON.stringify(stack.logs.at(-1)), [value]), [])

  const db = stack.host.resources.databases.application.db
  const wrong = {
    POPAGENT_SECRET_KEY: randomBytes(32).toString('base64'),
    POPAGENT_SECRET_KEYS_PREVIOUS: [],
  }
  await assert.rejects(
    openVault({ env: wrong, db, redactor: createSecretRedactor() }),
    (error: Error) => {
      assert.match(
        error.message,
        /POPAGENT_SECRET_KEY .*does not open 1 of 1 vault secret\(s\) \(SURVIVES\)/,
      )
      assert.ok(!error.message.includes(value))
      return true
    },
  )
  const none = { POPAGENT_SECRET_KEYS_PREVIOUS: [] }
  await assert.rejects(
    openVault({ env: none, db, redactor: createSecretRedactor() }),
    /POPAGENT_SECRET_KEY is not set but the database holds 1/,
  )
  const badKey = {
    POPAGENT_SECRET_KEY: randomBytes(31).toString('base64'),
    POPAGENT_SECRET_KEYS_PREVIOUS: [],
  }
  await assert.rejects(
    openVault({ env: badKey, db, redactor: createSecretRedactor() }),
    /POPAGENT_SECRET_KEY must be the base64 of exactly 32 bytes \(it decodes to 31\)/,
  )
})

test('without a key the vault is off: writes are a 503 that says why, and nothing is stored', async () => {
  const keyless = await startTestStack()
  try {
    const client = typedClient(keyless.edge()).api
    const res = await client.secrets.$post({ json: { name: 'NOPE', value: canary() } })
    const body = await errorJson(res, 503)
    assert.equal(body.error.code, 'VAULT_UNAVAILABLE')
    assert.match(body.error.message, /POPAGENT_SECRET_KEY/)
    assert.deepEqual((await okJson(await client.secrets.$get(), 200)).secrets, [])
  } finally {
    await keyless.stop()
  }
})

test("a second host on the same database redacts another host's secrets from its next turn on, and forgets deleted ones", async () => {
  const redactor = createSecretRedactor()
  const other = await startComputeHost(stack.host.resources.env, {
    port: 0,
    log: createLogger({ redactor, write: () => {} }),
    redactor,
    token: 'second-host-token-0123456789',
  })
  try {
    const value = canary()
    const created = await okJson(await api.secrets.$post({ json: { name: 'SHARED', value } }), 201)
    // Written through the first host: the second one does not know it yet.
    assert.ok(redactor.redact(value).includes(value))
    stack.gateway.respondWith(() => ({
      text: ['the value is ', value.slice(0, 10), value.slice(10)],
    }))
    const edge = createTestApp({
      db: stack.host.resources.databases.application.db,
      hostUrl: other.url,
      hostToken: other.token,
    })
    const client = typedClient(edge).api
    const sessionId = (await okJson(await client.sessions.$post({ json: {} }), 201)).id
    const before = stack.gateway.requests.length
    // The user pastes it too: the turn catches up with the vault before it reads the message.
    const message = userMessage(`hi, mine is ${value}`)
    const res = await edge.request(
      '/api/chat',
      json(
        { sessionId, workspaceId: 'wsp_default', model: 'test/model', message },
        { method: 'POST' },
      ),
    )
    assert.equal(res.status, 200)
    const chunks = await readUiStream(res)
    assert.match(streamedText(chunks), /the value is \[REDACTED\]/)
    assert.deepEqual(leaksIn(JSON.stringify(chunks), [value]), [])
    const sent = JSON.stringify(stack.gateway.requests.slice(before).map((r) => r.body))
    assert.match(sent, /hi, mine is \[REDACTED\]/)
    assert.deepEqual(leaksIn(sent, [value]), [], 'the model was sent the pasted secret')
    const saved = await okJson(await client.sessions[':id'].$get({ param: { id: sessionId } }))
    assert.deepEqual(leaksIn(JSON.stringify(saved.messages), [value]), [])

    await okJson(await api.secrets[':id'].$delete({ param: { id: created.id } }), 200)
    await other.resources.vault.sync()
    assert.equal(redactor.redact(value), value, 'a secret deleted elsewhere is still redacted')
  } finally {
    await other.stop()
  }
})
