/**
 * The compute host's internal API as the table in runtime/contracts/host-api.ts defines it: the
 * host serves exactly its routes, refuses a bad body the way the edge does (field errors
 * included), the host client hands those refusals on unchanged, and the edge's request id reaches
 * the host's log lines.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { z } from 'zod'
import { createReadyHostApp } from '../compute-host/host-handlers.ts'
import { createHostClient } from '../handlers/host-client.ts'
import { hostRoutes } from '../runtime/contracts/host-api.ts'
import { AppError } from '../runtime/errors.ts'
import { createSession } from './support/api-fixtures.ts'
import { json } from './support/app.ts'
import { userMessage } from './support/chat.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { errorJson } from './support/typed-client.ts'
import { readUiStream } from './support/ui-stream.ts'

const MODEL = 'remote/selected'
/** The data of a refused request: the field errors a 400 carries. */
const Refusal = z.object({ fields: z.record(z.string(), z.array(z.string())) })

describe('host API', () => {
  let stack: TestStack
  const host = (path: string, body: string) =>
    fetch(`${stack.host.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.host.token}`, 'content-type': 'application/json' },
      body,
    })

  before(async () => {
    stack = await startTestStack({ models: [{ id: MODEL }] })
  })
  after(() => stack.stop())

  test('the host serves every route of the table and no other', () => {
    const served = createReadyHostApp(stack.host.resources, stack.host.token)
      .routes.filter((r) => !(r.method === 'ALL' && r.path.endsWith('*')))
      .map((r) => `${r.method} ${r.path}`)
    const table = Object.values(hostRoutes).map((r) => `${r.method} ${r.path}`)
    assert.deepEqual([...new Set(served)].sort(), table.sort())
  })

  test('a host 400 names each refused field, as the edge’s do', async () => {
    const res = await host(hostRoutes.resolveWorkspace.path, JSON.stringify({ path: '', x: 1 }))
    const body = await errorJson(res, 400)
    assert.equal(body.error.code, 'VALIDATION_FAILED')
    assert.ok(body.error.data?.fields?.path, JSON.stringify(body.error.data))
    assert.deepEqual(body.error.data?.fields?.x, ['unknown field'])

    const malformed = await host(hostRoutes.cronPreview.path, '{"cron": ')
    assert.equal(typeof (await errorJson(malformed, 400)).error.code, 'string')
  })

  test('the host client passes a host refusal on with its code, status and field errors', async () => {
    const client = createHostClient({ url: stack.host.url, token: stack.host.token })
    await assert.rejects(client.resolveWorkspace({ path: '' }), (error: unknown) => {
      assert.ok(error instanceof AppError)
      assert.equal(error.code, 'VALIDATION_FAILED')
      assert.equal(error.status, 400)
      assert.ok(Refusal.parse(error.data).fields.path, JSON.stringify(error.data))
      return true
    })
    await assert.rejects(client.cronPreview({ cron: 'not a cron' }), { code: 'INVALID_CRON' })
    // A refused host token is the edge's problem, not the caller's: the host is unavailable.
    const wrongToken = createHostClient({ url: stack.host.url, token: 'not-the-host-token-00000' })
    await assert.rejects(wrongToken.cronTimezone(), { code: 'COMPUTE_HOST_UNAVAILABLE' })
  })

  test('the edge’s request id reaches the host’s log lines for that request', async () => {
    const edge = stack.edge()
    const sessionId = await createSession(edge)
    stack.gateway.respondWith(() => ({ status: 502, message: 'upstream exploded' }))
    try {
      const requestId = `host-log-${crypto.randomUUID()}`
      const res = await edge.request('/api/chat', {
        ...json(
          { sessionId, workspaceId: 'wsp_default', model: MODEL, message: userMessage('hi') },
          { method: 'POST' },
        ),
        headers: { 'content-type': 'application/json', 'x-request-id': requestId },
      })
      assert.equal(res.status, 200, await res.clone().text())
      await readUiStream(res)
      const lines = stack.logs.filter((l) => l.requestId === requestId)
      assert.ok(
        lines.some((l) => l.message === 'chat turn failed'),
        JSON.stringify(stack.logs.slice(-5)),
      )
    } finally {
      stack.gateway.respondWith(undefined)
    }
  })
})
