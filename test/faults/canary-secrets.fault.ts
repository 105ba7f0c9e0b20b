/**
 * Secrets never leave: a stack whose gateway key, edge API key, host token and database
 * password are random canaries is driven through everything a user does — streamed chat turns
 * (with a delegation tool call, a gateway failure, and a gateway that echoes its key in its
 * error), tasks, schedules, settings, workspaces, health, models, and every kind of error — and
 * every response (status, headers, body, stream events), every log line of the host and the
 * edge, and every row of both databases is searched for each canary in every encoding
 * (support/canary/canaries.ts), and so is every request body the model gateway received (a
 * turn reads a repository file holding two of them; only its headers carry the gateway's key).
 *
 * The vault's own stored values have their tour in test/vault-canaries.e2e.test.ts.
 */
import assert from 'node:assert/strict'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { z } from 'zod'
import { offeredTools, toolResultsOf } from '../support/chat.ts'
import type { RecordedRequest, Reply } from '../support/scripted-gateway.ts'
import { faultMode, recordFigures, sized } from './mode.ts'
import { makeCanaries, scan, type Canaries, type Hit } from './support/canary/canaries.ts'
import { startCanaryStack, type CanaryStack } from './support/canary/canary-stack.ts'
import { dumpDatabase } from './support/canary/database-dump.ts'
import { watchProcess, type ProcessWatch } from './support/http/process-watch.ts'
import { send, type RawRequest, type RawResponse } from './support/http/raw-http.ts'

type Recorded = { label: string; text: string; events: number }

type GatewayMode = 'ok' | 'fail' | 'echo-key' | 'read-planted'

// A repository file that holds secrets, as a checked-in `.env` does; a turn reads it.
const PLANTED = 'planted.env'

const describeHit = (h: Hit) => `${h.canary} (${h.form}) in ${h.source}: …${h.excerpt}…`
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe(`canary secrets (${faultMode})`, () => {
  const canaries: Canaries = makeCanaries()
  let stack: CanaryStack
  let watch: ProcessWatch
  let mode: GatewayMode = 'ok'
  const responses: Recorded[] = []
  let hits: Hit[] | undefined

  /** One request, recorded whole: status line, every header, the body (a stream, read to its end). */
  async function call(label: string, req: RawRequest, base = stack.url): Promise<RawResponse> {
    const res = await send(base, req, 60_000)
    const headers = Object.entries(res.headers).map(([k, v]) => `${k}: ${String(v)}`)
    const events = res.text.split('\n').filter((l) => l.startsWith('data:')).length
    responses.push({ label, text: [`${res.status}`, ...headers, '', res.text].join('\n'), events })
    return res
  }
  const key = () => ({ 'x-popagent-key': canaries.apiKey })
  const get = (path: string) => call(`GET ${path}`, { method: 'GET', path, headers: key() })
  const write = (method: string, path: string, body: unknown) =>
    call(`${method} ${path}`, {
      method,
      path,
      headers: { ...key(), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  // The tour reads back only ids and task states; the rest of each body is scanned, not read.
  const json = <T extends z.ZodType>(schema: T, res: RawResponse): z.infer<T> =>
    schema.parse(JSON.parse(res.text))
  const Created = z.object({ id: z.string() })

  /** The scripted model: the supervisor delegates once to the researcher, then answers. */
  function reply(request: RecordedRequest): Reply {
    if (mode === 'fail') return { status: 500, message: 'scripted upstream failure' }
    if (mode === 'echo-key')
      // What some providers do: name the key they refused. It must not travel further.
      return { status: 401, message: `Incorrect API key provided: ${canaries.gatewayKey}` }
    const tools = offeredTools(request)
    const delegated = toolResultsOf(request).length > 0
    if (mode === 'read-planted' && !delegated)
      return { toolCalls: [{ name: 'workspace-read', arguments: { path: PLANTED } }] }
    if (tools.includes('agent-researcher') && !delegated)
      return { toolCalls: [{ name: 'agent-researcher', arguments: { prompt: 'look around' } }] }
    return { text: ['Every', 'thing ', 'is fine.'] }
  }

  async function chatTurn(sessionId: string, text: string, workspaceId = 'wsp_default') {
    const res = await write('POST', '/api/chat', {
      sessionId,
      workspaceId,
      model: 'test/model',
      message: {
        id: `u_${Math.random().toString(36).slice(2)}`,
        role: 'user',
        parts: [{ type: 'text', text }],
      },
    })
    assert.ok(res.status < 500, `chat: ${res.status} ${res.text.slice(0, 300)}`)
    return res
  }

  async function settledTask(id: string) {
    for (let i = 0; i < 100; i++) {
      const task = json(z.object({ state: z.string() }), await get(`/api/tasks/${id}`))
      if (['completed', 'failed', 'dead-letter', 'cancelled'].includes(task.state)) return task
      await sleep(100)
    }
    throw new Error(`task ${id} did not settle`)
  }

  before(async () => {
    watch = watchProcess({ captureConsole: true })
    stack = await startCanaryStack(canaries)
    stack.gateway.respondWith(reply)
  })
  after(async () => {
    await stack?.stop()
    watch?.stop()
  })

  test('the scan finds a canary in every encoding, wherever it sits', () => {
    const secret = canaries.hostToken
    const wrapped = [
      `x ${secret} y`,
      JSON.stringify({ header: `Bearer "${secret}"` }),
      `?t=${encodeURIComponent(`${secret}/`)}`,
      Buffer.from(`abc${secret}`).toString('hex').toUpperCase(),
      ...['', 'u', 'us', 'usr'].flatMap((p) => [
        Buffer.from(`${p}:${secret}:tail`).toString('base64'),
        Buffer.from(`${p}${secret}`).toString('base64url'),
      ]),
    ]
    for (const text of wrapped) assert.ok(scan(canaries, 'probe', text).length > 0, text)
    assert.deepEqual(scan(canaries, 'probe', `${secret.slice(0, -1)} and unrelated text`), [])
  })

  test('a full tour of the product leaves no canary anywhere', async () => {
    // Health, models, settings.
    assert.equal((await get('/api/health')).status, 200)
    assert.equal((await get('/api/models')).status, 200)
    for (const s of ['agent-runtime', 'memory', 'autonomy', 'browser'])
      await get(`/api/settings/${s}`)
    await write('PATCH', '/api/settings/browser', { enabled: false })
    await write('PATCH', '/api/settings/autonomy', { skillCreationEnabled: false })
    await write('PATCH', '/api/settings/agent-runtime', { configuredModel: 'test/model' })

    // Sessions and streamed chat turns: a delegation, a gateway failure, a key-echoing gateway.
    const session = json(
      Created,
      await write('POST', '/api/sessions', { workspaceId: 'wsp_default', title: 'canary' }),
    )
    const turns = sized(2, 4)
    for (let i = 0; i < turns; i++) await chatTurn(session.id, `turn ${i}: look at the repo`)
    mode = 'fail'
    await chatTurn(session.id, 'this one fails upstream')
    mode = 'echo-key'
    await chatTurn(session.id, 'this one is refused with the key in the message')
    mode = 'ok'
    await get(`/api/sessions/${session.id}`)
    await get('/api/sessions')
    await write('PATCH', `/api/sessions/${session.id}`, { title: 'renamed' })

    // Tasks: one that completes, one whose gateway echoes its key, one cancelled, one resolved.
    const done = json(
      Created,
      await write('POST', '/api/tasks', { workspaceId: 'wsp_default', prompt: 'do a task' }),
    )
    await settledTask(done.id)
    mode = 'echo-key'
    const refused = json(
      Created,
      await write('POST', '/api/tasks', {
        workspaceId: 'wsp_default',
        prompt: 'be refused',
        maxAttempts: 1,
      }),
    )
    await settledTask(refused.id)
    mode = 'ok'
    await get(`/api/tasks/${done.id}/workflow`)
    await get(`/api/tasks/${refused.id}/workflow`)
    await write('POST', `/api/tasks/${refused.id}/resolve`, { evidence: 'checked by hand' })
    const cancelled = json(
      Created,
      await write('POST', '/api/tasks', { workspaceId: 'wsp_default', prompt: 'cancel me' }),
    )
    await write('POST', `/api/tasks/${cancelled.id}/cancel`, {})
    await get('/api/tasks')

    // Schedules and workspaces.
    await write('POST', '/api/schedules/preview', { cron: '*/5 * * * *' })
    const schedule = json(
      Created,
      await write('POST', '/api/schedules', {
        workspaceId: 'wsp_default',
        name: 'canary schedule',
        cron: '0 3 * * *',
        prompt: 'nightly',
        enabled: false,
      }),
    )
    await write('PATCH', `/api/schedules/${schedule.id}`, { cron: '0 4 * * *' })
    await get('/api/schedules')
    await write('DELETE', `/api/schedules/${schedule.id}`, undefined)
    const workspace = json(
      Created,
      await write('POST', '/api/workspaces', { name: 'Canary repo', path: 'repo' }),
    )
    await get(`/api/workspaces/${workspace.id}/repo-brief?q=readme`)
    await get('/api/workspaces')
    // A tool result that holds secrets: what the model is sent next must not (searched below).
    await writeFile(
      join(stack.workspaceRoot, 'repo', PLANTED),
      `HOST_TOKEN=${canaries.hostToken}\nDATABASE_PASSWORD=${canaries.databasePassword}\n`,
    )
    const reading = json(
      Created,
      await write('POST', '/api/sessions', { workspaceId: workspace.id, title: 'planted' }),
    )
    mode = 'read-planted'
    await chatTurn(reading.id, 'read the planted file', workspace.id)
    mode = 'ok'
    await get('/api/agents')

    // Errors: bad inputs, unknown routes, wrong methods, no key, wrong key, huge bodies.
    await write('POST', '/api/sessions', { title: 5 })
    await write('PUT', `/api/sessions/${session.id}`, { revision: 999, messages: [] })
    await call('malformed', {
      method: 'POST',
      path: '/api/tasks',
      headers: { ...key(), 'content-type': 'application/json' },
      body: '{',
    })
    await call('form body', {
      method: 'POST',
      path: '/api/tasks',
      headers: { ...key(), 'content-type': 'text/plain' },
      body: 'a',
    })
    await call('too large', {
      method: 'POST',
      path: '/api/tasks',
      headers: { ...key(), 'content-type': 'application/json' },
      body: 'x'.repeat(5 * 1024 * 1024),
    })
    await get('/api/no-such-route')
    await get('/api/sessions/ses_00000000000000000000000000')
    await call('no key', { method: 'GET', path: '/api/sessions' })
    await call('wrong key', {
      method: 'GET',
      path: '/api/sessions',
      headers: { 'x-popagent-key': 'x'.repeat(40) },
    })
    await call('key in query', { method: 'GET', path: `/api/sessions?key=wrong` })
    await call('ui', { method: 'GET', path: '/' })

    // The compute host's own answers, with and without its token.
    const bearer = { authorization: `Bearer ${canaries.hostToken}` }
    await call(
      'host health',
      { method: 'GET', path: '/internal/health', headers: bearer },
      stack.host.url,
    )
    await call(
      'host models',
      { method: 'GET', path: '/internal/models', headers: bearer },
      stack.host.url,
    )
    await call('host no token', { method: 'GET', path: '/internal/health' }, stack.host.url)
    await call(
      'host bad body',
      {
        method: 'POST',
        path: '/internal/chat',
        headers: { ...bearer, 'content-type': 'application/json' },
        body: '{"x":1}',
      },
      stack.host.url,
    )

    // Let background work (memory, task bookkeeping) write what it writes.
    await sleep(500)
    const sawGateway = stack.gateway.requests.length
    assert.ok(sawGateway > 0, 'the gateway was used')

    // Everything the product produced, searched.
    hits = []
    let bytes = 0
    const search = (source: string, text: string) => {
      bytes += Buffer.byteLength(text)
      hits!.push(...scan(canaries, source, text))
    }
    for (const r of responses) search(`response ${r.label}`, r.text)
    // The bodies only: the requests' headers carry the gateway key, which the gateway needs.
    const sent = stack.gateway.requests.map((r) => JSON.stringify(r.body ?? null))
    sent.forEach((body, i) => search(`gateway request ${i}`, body))
    const plantedRead = sent.some((body) => body.includes('HOST_TOKEN=[REDACTED]'))
    assert.ok(plantedRead, 'the planted file reached the model (redacted)')
    const logLines = [...watch.stderrLines, ...watch.consoleLines]
    logLines.forEach((line, i) => search(`log line ${i}`, line))
    let tables = 0
    for (const [name, url] of Object.entries(stack.databaseUrls)) {
      for (const t of await dumpDatabase(url)) {
        tables++
        search(`${name} table ${t.table}`, t.text)
      }
    }
    watch.stop()

    await recordFigures('canary-secrets', {
      canaries: Object.keys(canaries),
      bytesScanned: bytes,
      responses: responses.length,
      events: responses.reduce((n, r) => n + r.events, 0),
      logLines: logLines.length,
      tables,
      gatewayRequests: sawGateway,
      hits: hits.length,
    })
    assert.ok(logLines.length > 0 && tables > 5, `${logLines.length} log lines, ${tables} tables`)
    assert.deepEqual(hits.map(describeHit), [])
    assert.deepEqual(watch.unhandled, [])
  })
})
