/**
 * Chat turns end to end over real HTTP: a client → the Node edge → the compute host → Mastra →
 * the scripted gateway, with real PostgreSQL behind the edge, the host and Mastra's memory.
 */
import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { workspaces } from '../db/schema/index.ts'
import { json } from './support/app.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { errorJson, okJson, typedClient, type Client } from './support/typed-client.ts'
import { readUiStream, streamedText } from './support/ui-stream.ts'
import { roleOf, toolResultsOf, userMessage } from './support/chat.ts'
import type { Reply } from './support/scripted-gateway.ts'

const ROUTE = 'remote/selected'
const MODELS = [{ id: ROUTE }, { id: 'titan/local' }, { id: 'cx/gpt-5.3-codex-spark' }]

describe('chat turns', () => {
  let stack: TestStack
  let url: string
  let api: Client['api']
  let sessionId: string
  const workspaceId = 'wsp_default'

  before(async () => {
    stack = await startTestStack({
      models: MODELS,
      hostEnv: { POPAGENT_LOCAL_MODEL_CONCURRENCY: '2', POPAGENT_LOCAL_MODEL_PREFIXES: 'titan/' },
    })
    url = await stack.listen()
    api = typedClient(url).api
    // Mark each role's prompt so the scripted gateway can tell who is asking, and let every
    // specialist inherit the request's route.
    for (const id of ['orchistrator', 'researcher', 'implementer', 'reviewer']) {
      const res = await typedClient(stack.edge()).api.agents[':id'].$patch({
        param: { id },
        json: { instructions: `ROLE:${id}\nYou are the ${id}.`, modelOverride: null },
      })
      assert.equal(res.status, 200)
    }
  })
  after(() => stack.stop())

  const newSession = async () => {
    return (await okJson(await api.sessions.$post({ json: { workspaceId } }))).id
  }
  const getSession = async (id: string) => okJson(await api.sessions[':id'].$get({ param: { id } }))
  const archive = (id: string) =>
    api.sessions[':id'].$patch({ param: { id }, json: { archived: true } })
  const listSessions = async (status: 'active' | 'archived') =>
    (await okJson(await api.sessions.$get({ query: { workspaceId, status } }))).sessions
  // Parts are open objects (the AI SDK adds kinds); these tests read the fields of known kinds.
  type Part = { type: string; text?: string; data?: { agentId?: string; status?: string } }
  const send = (body: unknown, signal?: AbortSignal) =>
    fetch(`${url}/api/chat`, { ...json(body, { method: 'POST' }), ...(signal && { signal }) })

  test('the orchestrator delegates research → implementation → review, streamed and saved', async () => {
    sessionId = await newSession()
    const specialistText: Record<string, string> = {
      researcher: 'The bug is in parse().',
      implementer: 'Fixed parse() and added a test.',
      reviewer: 'Looks correct; tests pass.',
    }
    stack.gateway.respondWith((request): Reply | undefined => {
      const role = roleOf(request)
      if (role === 'orchistrator') {
        const delegations = toolResultsOf(request).length
        const next = ['agent-researcher', 'agent-implementer', 'agent-reviewer'][delegations]
        if (next)
          return { toolCalls: [{ name: next, arguments: { prompt: `Please handle: ${next}` } }] }
        return { text: ['All ', 'done: ', 'fixed and reviewed.'] }
      }
      const text = specialistText[role]
      return text ? { text } : undefined
    })
    try {
      const seen = stack.gateway.requests.length
      const res = await send({
        sessionId,
        workspaceId,
        model: ROUTE,
        message: userMessage('Fix the parser bug'),
      })
      assert.equal(res.status, 200, await res.clone().text())
      assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/)
      const chunks = await readUiStream(res)
      assert.equal(streamedText(chunks), 'All done: fixed and reviewed.')

      const activity = chunks.filter((c) => c.type === 'data-agentActivity')
      const delegationOrder = activity
        .filter((c) => c.data.kind === 'delegation' && c.data.status === 'running')
        .map((c) => c.data.agentId)
      assert.deepEqual(delegationOrder, ['researcher', 'implementer', 'reviewer'])
      const completed = activity.filter((c) => c.data.status === 'completed')
      assert.deepEqual(
        completed.map((c) => c.data.output),
        [specialistText.researcher, specialistText.implementer, specialistText.reviewer],
      )
      // Activity streams before the final text.
      const firstText = chunks.findIndex((c) => c.type === 'text-delta')
      const lastActivity = chunks.findLastIndex((c) => c.type === 'data-agentActivity')
      assert.ok(lastActivity < firstText, `activity ${lastActivity} before text ${firstText}`)

      // Every model call of this turn, supervisor and specialists, used the selected route.
      const calls = stack.gateway.requests
        .slice(seen)
        .filter((r) => r.path === '/v1/chat/completions')
      assert.deepEqual([...new Set(calls.map(roleOf))].sort(), [
        'implementer',
        'orchistrator',
        'researcher',
        'reviewer',
      ])
      for (const call of calls) assert.equal(call.body.model, ROUTE, roleOf(call))

      // Reloading the session shows the same messages and activity.
      const session = await getSession(sessionId)
      assert.equal(session.revision, 1)
      assert.equal(session.messages.length, 2)
      const [user, assistant] = session.messages
      assert.ok(user && assistant)
      assert.equal(user.role, 'user')
      assert.equal(assistant.role, 'assistant')
      const parts = assistant.parts as Part[]
      const savedText = parts
        .filter((p) => p.type === 'text')
        .map((p) => p.text)
        .join('')
      assert.equal(savedText, 'All done: fixed and reviewed.')
      const savedActivity = parts.filter((p) => p.type === 'data-agentActivity')
      assert.deepEqual(
        savedActivity.map((p) => [p.data?.agentId, p.data?.status]),
        [
          ['researcher', 'completed'],
          ['implementer', 'completed'],
          ['reviewer', 'completed'],
        ],
      )
      const metadata = assistant.metadata as {
        turnId: string
        traceId: string
        usage: Record<string, { outputTokens: number }>
      }
      assert.match(metadata.turnId, /^trn_/)
      assert.match(metadata.traceId, /^[0-9a-f]{32}$/)
      assert.ok(metadata.usage[ROUTE]!.outputTokens > 0, JSON.stringify(metadata))
      assert.equal(session.title, 'Fix the parser bug')
    } finally {
      stack.gateway.respondWith(undefined)
    }
  })

  test('restarting the compute host between turns loses no history', async () => {
    await stack.restartHost()
    stack.gateway.respondWith(() => ({ text: 'second answer' }))
    try {
      const seen = stack.gateway.requests.length
      const res = await send({
        sessionId,
        workspaceId,
        model: ROUTE,
        message: userMessage('And now?'),
      })
      assert.equal(res.status, 200)
      assert.equal(streamedText(await readUiStream(res)), 'second answer')
      const call = stack.gateway.requests
        .slice(seen)
        .find((r) => r.path === '/v1/chat/completions')!
      const history = JSON.stringify(call.body.messages)
      // The first turn's user message and answer came back from Mastra's thread, not the client.
      assert.ok(history.includes('Fix the parser bug'), history.slice(0, 500))
      assert.ok(history.includes('fixed and reviewed'), history.slice(0, 500))
      const session = await getSession(sessionId)
      assert.equal(session.messages.length, 4)
      assert.equal(session.revision, 2)
    } finally {
      stack.gateway.respondWith(undefined)
    }
  })

  test('stopping mid-stream closes the gateway connection and keeps the session consistent', async () => {
    const id = await newSession()
    stack.gateway.respondWith(() => ({
      text: Array.from({ length: 200 }, (_, i) => `w${i} `),
      chunkDelayMs: 25,
    }))
    try {
      const res = await send({
        sessionId: id,
        workspaceId,
        model: ROUTE,
        message: userMessage('Talk a lot'),
      })
      const reader = res.body!.getReader()
      let received = ''
      const decoder = new TextDecoder()
      while (!received.includes('text-delta'))
        received += decoder.decode((await reader.read()).value)
      assert.equal(stack.gateway.active(), 1)
      const abortedAt = performance.now()
      // The turn runs on whatever happens to this connection; the owner's Stop ends it.
      assert.equal((await api.sessions[':id'].stop.$post({ param: { id } })).status, 200)
      while (stack.gateway.active() > 0 && performance.now() - abortedAt < 5_000) {
        await new Promise((r) => setTimeout(r, 10))
      }
      const closedMs = performance.now() - abortedAt
      assert.equal(stack.gateway.active(), 0)
      assert.ok(closedMs < 1_000, `gateway connection closed after ${Math.round(closedMs)} ms`)
      // The turn is saved once: the user message and the partial, marked answer.
      let session = await getSession(id)
      for (let i = 0; i < 100 && session.messages.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 20))
        session = await getSession(id)
      }
      assert.equal(session.messages.length, 2)
      assert.equal(session.messages[1]?.metadata?.aborted, true)
      assert.equal(stack.host.resources.localModels.queue.stats().active, 0)
      await reader.cancel()
    } finally {
      stack.gateway.respondWith(undefined)
    }
  })

  test('three concurrent turns on a local route never put more than two at the gateway', async () => {
    const ids = await Promise.all([newSession(), newSession(), newSession()])
    let peak = 0
    stack.gateway.respondWith(() => {
      peak = Math.max(peak, stack.gateway.active() + 1)
      return { text: ['local ', 'answer'], delayMs: 150 }
    })
    try {
      const results = await Promise.all(
        ids.map(async (id) => {
          const res = await send({
            sessionId: id,
            workspaceId,
            model: 'titan/local',
            message: userMessage('hi'),
          })
          return streamedText(await readUiStream(res))
        }),
      )
      assert.deepEqual(results, ['local answer', 'local answer', 'local answer'])
      assert.equal(peak, 2)
    } finally {
      stack.gateway.respondWith(undefined)
    }
  })

  test('a gateway failure reaches the client as an error part and the session stays intact', async () => {
    const id = await newSession()
    stack.gateway.respondWith(() => ({ status: 502, message: 'upstream exploded' }))
    try {
      const res = await send({
        sessionId: id,
        workspaceId,
        model: ROUTE,
        message: userMessage('hi'),
      })
      assert.equal(res.status, 200)
      const chunks = await readUiStream(res)
      const error = chunks.find((c) => c.type === 'error')
      assert.ok(error, JSON.stringify(chunks))
      assert.match(error.errorText, /model gateway answered 502/)
      const session = await getSession(id)
      assert.equal(session.messages.length, 2)
      assert.match(String(session.messages[1]?.metadata?.error), /502/)
      // Mastra's own error line reached the host log, without the provider request it carries.
      const mastra = stack.logs.filter((l) => l.source === 'mastra' && l.statusCode === 502)
      assert.ok(mastra.length > 0, 'Mastra logged through the host logger')
      assert.ok(!JSON.stringify(stack.logs).includes('requestBodyValues'))
    } finally {
      stack.gateway.respondWith(undefined)
    }
  })

  test('words that arrive together reach the client one by one: the first before the last', async () => {
    // A fast local model, or deltas the network delivered in one read: the gateway sends its
    // whole answer in one burst, small enough (about 8 KB) to reach the host in one read.
    const words = Array.from({ length: 60 }, (_, i) => `w${i} `)
    stack.gateway.respondWith(() => ({ text: words }))
    // Which read of the client's socket held the first word and which the last, per turn. Before
    // the fix they were always the same read; a busy machine may still join them now and then
    // (the client reads late), so one turn in five showing them apart is the proof.
    const seen: string[] = []
    try {
      for (let attempt = 1; attempt <= 5; attempt++) {
        const res = await send({
          sessionId: await newSession(),
          workspaceId,
          model: ROUTE,
          message: userMessage('go'),
        })
        assert.equal(res.status, 200)
        const decoder = new TextDecoder()
        let received = ''
        let reads = 0
        let first: number | undefined
        let last: number | undefined
        for await (const bytes of res.body!) {
          received += decoder.decode(bytes as Uint8Array, { stream: true })
          reads++
          first ??= received.includes('"delta":"w0 "') ? reads : undefined
          last ??= received.includes(`"delta":"${words.at(-1)}"`) ? reads : undefined
        }
        assert.ok(first !== undefined && last !== undefined, 'the answer was not streamed')
        seen.push(`first in read ${first}, last in read ${last}`)
        if (first < last) return
      }
      assert.fail(`the first word always came with the last: ${seen.join('; ')}`)
    } finally {
      stack.gateway.respondWith(undefined)
    }
  })

  test('turns on missing or archived sessions, or with extra fields, are refused clearly', async () => {
    const missing = await send({
      sessionId: 'ses_01JD0000000000000000000000',
      workspaceId,
      message: userMessage('x'),
    })
    assert.equal((await errorJson(missing, 404)).error.code, 'SESSION_NOT_FOUND')
    const id = await newSession()
    await archive(id)
    const archived = await send({ sessionId: id, workspaceId, message: userMessage('x') })
    assert.equal((await errorJson(archived, 409)).error.code, 'SESSION_ARCHIVED')
    const injected = await send({
      sessionId: id,
      workspaceId,
      message: userMessage('x'),
      tools: { evil: {} },
    })
    assert.equal(injected.status, 400)
    const assistantMessage = await send({
      sessionId: id,
      workspaceId,
      message: { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'x' }] },
    })
    assert.equal(assistantMessage.status, 400)
  })

  test('deleting a session removes its Mastra thread; deleting a workspace’s sessions removes only those', async () => {
    const memory = stack.host.resources.memory
    const agentIds = ['researcher', 'implementer', 'reviewer']
    assert.ok((await memory.countMessages(sessionId)) > 0)
    // The delegations of the first turn left one specialist thread each.
    assert.equal((await memory.threadIds([sessionId], agentIds)).length, 4)
    const res = await api.sessions[':id'].$delete({ param: { id: sessionId } })
    assert.equal(res.status, 200)
    assert.equal(await memory.countMessages(sessionId), 0)
    assert.deepEqual(await memory.threadIds([sessionId], agentIds), [])
    assert.equal((await api.sessions[':id'].$get({ param: { id: sessionId } })).status, 404)

    // A second workspace with its own session; deleting the default's sessions leaves it alone.
    await stack.host.resources.databases.application.db
      .insert(workspaces)
      .values({ id: 'wsp_other', name: 'other', path: 'other' })
    const otherRes = await api.sessions.$post({ json: { workspaceId: 'wsp_other' } })
    const other = (await okJson(otherRes)).id
    stack.gateway.respondWith(() => ({ text: 'kept' }))
    try {
      const turn = await send({
        sessionId: other,
        workspaceId: 'wsp_other',
        model: ROUTE,
        message: userMessage('keep me'),
      })
      await readUiStream(turn)
    } finally {
      stack.gateway.respondWith(undefined)
    }
    const archivedDefault = await newSession()
    await archive(archivedDefault)
    const defaultIds: string[] = []
    for (const status of ['active', 'archived'] as const) {
      defaultIds.push(...(await listSessions(status)).map((s) => s.id))
    }
    assert.ok(defaultIds.includes(archivedDefault))
    assert.ok(defaultIds.length > 0)

    const wipe = (id: string) => api.workspaces[':id'].sessions.$delete({ param: { id } })
    const wiped = await wipe(workspaceId)
    assert.equal((await okJson(wiped, 200)).deleted, defaultIds.length)
    for (const status of ['active', 'archived'] as const) {
      assert.deepEqual(await listSessions(status), [])
    }
    for (const id of defaultIds) assert.equal(await memory.countMessages(id), 0)
    assert.equal((await api.sessions[':id'].$get({ param: { id: other } })).status, 200)
    assert.ok((await memory.countMessages(other)) > 0)
    const unknown = await wipe('wsp_nowhere')
    assert.equal(unknown.status, 404)
  })
  test('a file part naming a URL is refused with a 400 naming the field, and nothing is ever fetched', async () => {
    // Every connection to this listener counts, whatever protocol it would have spoken.
    let connections = 0
    const listener = createServer((socket) => {
      connections++
      socket.destroy()
    })
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
    const port = (listener.address() as { port: number }).port
    stack.gateway.respondWith(() => ({ text: 'ok' }))
    try {
      const id = await newSession()
      const message = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
        id: `u_${Math.random().toString(36).slice(2)}`,
        role: 'user',
        parts: [{ type: 'text', text: 'look at this' }, ...parts],
        ...extra,
      })
      const refused: [string, ReturnType<typeof message>][] = [
        [
          'message.parts.1.url',
          message([
            { type: 'file', mediaType: 'image/png', url: `https://127.0.0.1:${port}/a.png` },
          ]),
        ],
        [
          'message.parts.1.url',
          message([
            { type: 'file', mediaType: 'text/plain', url: `http://127.0.0.1:${port}/a.txt` },
          ]),
        ],
        ['message.parts.1.type', message([{ type: 'image', image: `http://127.0.0.1:${port}/b` }])],
        [
          'message.experimental_attachments',
          message([], {
            experimental_attachments: [
              { url: `http://127.0.0.1:${port}/c`, contentType: 'image/png' },
            ],
          }),
        ],
      ]
      for (const [field, body] of refused) {
        const res = await send({ sessionId: id, workspaceId, model: ROUTE, message: body })
        const answer = await errorJson(res, 400)
        assert.equal(answer.error.code, 'VALIDATION_FAILED')
        assert.ok(answer.error.data?.fields?.[field], JSON.stringify(answer.error.data))
        // The host refuses it too, should anything reach it without the edge.
        const host = await fetch(`${stack.host.url}/internal/chat`, {
          ...json({ sessionId: id, workspaceId, model: ROUTE, message: body }, { method: 'POST' }),
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${stack.host.token}`,
          },
        })
        assert.equal(host.status, 400)
      }
      // A file carried inline is accepted, and two further turns read the thread back.
      const inline = message([
        { type: 'file', mediaType: 'text/plain', url: 'data:text/plain;base64,aGVsbG8=' },
      ])
      for (const body of [inline, userMessage('and again'), userMessage('once more')]) {
        const res = await send({ sessionId: id, workspaceId, model: ROUTE, message: body })
        assert.equal(res.status, 200, await res.clone().text())
        await readUiStream(res)
      }
      const session = await getSession(id)
      assert.equal(session.messages.length, 6)
      assert.equal(connections, 0, 'the server connected to the URL a client named')
    } finally {
      stack.gateway.respondWith(undefined)
      await new Promise((resolve) => listener.close(resolve))
    }
  })
})
