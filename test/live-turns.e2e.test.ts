/**
 * Live turns over real HTTP (a client → the Node edge → the compute host → Mastra → the scripted
 * gateway, real PostgreSQL): a turn runs on the host whatever happens to the request that
 * started it; any client joins it from its start or from the chunk it last received, or stops
 * it; one turn runs per session; the sessions say which are running; a host that restarts or
 * crashes mid-turn leaves the user's message saved and the turn marked as interrupted.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql } from '../db/drizzle-orm.ts'
import { liveTurnHost } from '../compute-host/runs/live-turn-host.ts'
import { INTERRUPTED_BY_RESTART } from '../runtime/sessions/live-turns.ts'
import { postChat, userMessage } from './support/chat.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { errorJson, okJson, typedClient, type Client } from './support/typed-client.ts'
import { readSseEvents, type SseEvent } from './support/ui-stream.ts'
import { until, waitFor } from './support/until.ts'

const ROUTE = 'remote/selected'
const WORDS = Array.from({ length: 40 }, (_, i) => `w${i} `)
/** A reply that takes about 1.2 s to stream, so clients can come and go meanwhile. */
const slowReply = () => ({ text: WORDS, chunkDelayMs: 30 })

const chunkOf = (event: SseEvent) => JSON.parse(event.data) as { type: string; delta?: string }
const textOf = (events: SseEvent[]) =>
  events
    .filter((e) => e.data !== '[DONE]')
    .map(chunkOf)
    .filter((c) => c.type === 'text-delta')
    .map((c) => c.delta)
    .join('')
type Part = { type: string; text?: string }
const savedText = (message: { parts: unknown[] } | undefined) =>
  ((message?.parts ?? []) as Part[])
    .filter((p) => p.type === 'text')
    .map((p) => p.text)
    .join('')

describe('live turns', () => {
  let stack: TestStack
  let url: string
  let api: Client['api']
  const workspaceId = 'wsp_default'

  before(async () => {
    stack = await startTestStack({ models: [{ id: ROUTE }] })
    url = await stack.listen()
    api = typedClient(url).api
  })
  after(() => stack.stop())

  const newSession = async () => (await okJson(await api.sessions.$post({ json: {} }))).id
  const getSession = async (id: string) => okJson(await api.sessions[':id'].$get({ param: { id } }))
  const start = (sessionId: string, text: string, signal?: AbortSignal) =>
    postChat(url, { sessionId, model: ROUTE, text }, signal)
  const join = (sessionId: string, init: { after?: number; lastEventId?: number } = {}) =>
    fetch(
      `${url}/api/chat/${sessionId}/stream${init.after !== undefined ? `?after=${init.after}` : ''}`,
      init.lastEventId !== undefined
        ? { headers: { 'last-event-id': String(init.lastEventId) } }
        : {},
    )
  const stop = (id: string) => api.sessions[':id'].stop.$post({ param: { id } })
  /** Waits until the session holds the turn's two messages and no turn runs in it. */
  const saved = async (id: string) =>
    waitFor(
      async () => {
        const session = await getSession(id)
        return session.messages.length >= 2 && !session.liveTurn ? session : undefined
      },
      10_000,
      'the turn to be saved',
    )

  test('a turn outlives the request that started it: the client goes away mid-reply, the turn completes and is saved', async () => {
    const id = await newSession()
    stack.gateway.respondWith(slowReply)
    try {
      const client = new AbortController()
      const res = await start(id, 'Talk a while', client.signal)
      assert.equal(res.status, 200)
      const reader = res.body!.getReader()
      let received = ''
      while (!received.includes('text-delta'))
        received += new TextDecoder().decode((await reader.read()).value)
      client.abort()
      // The run goes on at the gateway without anyone listening.
      await new Promise((r) => setTimeout(r, 200))
      assert.equal(stack.gateway.active(), 1, 'the gateway request was closed with the client')
      const session = await saved(id)
      assert.equal(session.messages[0]?.role, 'user')
      assert.equal(savedText(session.messages[1]), WORDS.join(''))
      assert.equal(session.messages[1]?.metadata?.aborted, undefined)
    } finally {
      stack.gateway.respondWith(undefined)
    }
  })

  test('a second client joins the running turn and receives the same chunks, from its start and from chunk N', async () => {
    const id = await newSession()
    assert.equal((await join(id)).status, 204, 'nothing runs before the turn')
    stack.gateway.respondWith(slowReply)
    try {
      const res = await start(id, 'Talk a while')
      let joined: Promise<SseEvent[]> | undefined
      let resumed: Promise<SseEvent[]> | undefined
      let resumedByHeader: Promise<SseEvent[]> | undefined
      let n = 0
      const original = await readSseEvents(res, (event) => {
        // Mid-reply: one client joins from the start, two from the chunk just received.
        if (event.data.includes('"delta":"w5 "')) {
          n = event.id!
          joined = join(id).then((r) => readSseEvents(r))
          resumed = join(id, { after: n }).then((r) => readSseEvents(r))
          resumedByHeader = join(id, { lastEventId: n }).then((r) => readSseEvents(r))
        }
      })
      assert.ok(joined && resumed && resumedByHeader && n > 0, 'the reply never reached w5')
      assert.equal(textOf(original), WORDS.join(''))
      assert.equal(chunkOf(original[0]!).type, 'start', 'a replay begins with the reply’s start')
      // Every event is numbered in order, and every client got the same events.
      const numbered = original.filter((e) => e.id !== undefined)
      assert.deepEqual(
        numbered.map((e) => e.id),
        numbered.map((_, i) => i + 1),
      )
      assert.deepEqual(await joined, original)
      assert.deepEqual(
        await resumed,
        original.filter((e) => e.id === undefined || e.id > n),
      )
      assert.deepEqual(await resumedByHeader, await resumed)
      await saved(id)
      assert.equal((await join(id)).status, 204, 'nothing runs after the turn')
    } finally {
      stack.gateway.respondWith(undefined)
    }
  })

  test('Stop from another client stops the turn, which is saved as stopped', async () => {
    const id = await newSession()
    assert.deepEqual(await okJson(await stop(id)), { stopped: false, turnId: null })
    stack.gateway.respondWith(() => ({ text: WORDS, chunkDelayMs: 100 }))
    try {
      const res = await start(id, 'Talk a while')
      let stopped: ReturnType<typeof stop> | undefined
      const events = await readSseEvents(res, (event) => {
        if (!stopped && event.data.includes('"delta":"w1 "')) stopped = stop(id)
      })
      const answer = await okJson(await stopped!)
      assert.equal(answer.stopped, true)
      assert.match(answer.turnId ?? '', /^trn_/)
      assert.ok(!textOf(events).includes('w39'), 'the reply stopped early')
      assert.equal(events.at(-1)?.data, '[DONE]', 'the starting client’s stream ended cleanly')
      await until(() => stack.gateway.active() === 0, 2_000, 'the gateway request to close')
      const session = await saved(id)
      assert.equal(session.messages[1]?.metadata?.aborted, true)
      assert.equal(session.messages[1]?.metadata?.turnId, answer.turnId)
    } finally {
      stack.gateway.respondWith(undefined)
    }
  })

  test('a second turn while one runs in the session is refused with 409; the sessions say which one runs', async () => {
    const id = await newSession()
    const other = await newSession()
    stack.gateway.respondWith(slowReply)
    try {
      const first = await start(id, 'First question')
      assert.equal(first.status, 200)
      const refused = await errorJson(await start(id, 'Second question'), 409)
      assert.equal(refused.error.code, 'TURN_IN_PROGRESS')
      assert.match(refused.error.message, /still being written/)

      const listed = (await okJson(await api.sessions.$get({ query: { workspaceId } }))).sessions
      const running = listed.find((s) => s.id === id)?.liveTurn
      assert.match(running?.turnId ?? '', /^trn_/)
      assert.equal(listed.find((s) => s.id === other)?.liveTurn, null)
      const session = await getSession(id)
      assert.equal(session.liveTurn?.turnId, running?.turnId)
      assert.equal(savedText(session.liveTurn?.message), 'First question')
      assert.equal(session.messages.length, 0, 'the user’s message is kept with the live turn')

      await readSseEvents(first)
      const done = await saved(id)
      assert.equal(done.liveTurn, null)
      assert.deepEqual(
        done.messages.map((m) => savedText(m)).slice(0, 1),
        ['First question'],
        'the refused message was never saved',
      )
      assert.equal(done.messages.length, 2)
      // Once it ended, the session takes the next turn.
      assert.equal((await start(id, 'Second question')).status, 200)
      await until(async () => (await getSession(id)).messages.length === 4, 10_000, 'turn 2')
    } finally {
      stack.gateway.respondWith(undefined)
    }
  })

  test('a host restart mid-turn saves the turn as interrupted, with the user’s message; the session then takes turns again', async () => {
    const id = await newSession()
    stack.gateway.respondWith(slowReply)
    try {
      const res = await start(id, 'Survive a restart')
      const reader = res.body!.getReader()
      let received = ''
      while (!received.includes('text-delta'))
        received += new TextDecoder().decode((await reader.read()).value)
      await stack.restartHost()
      await reader.cancel().catch(() => {})
      const session = await saved(id)
      assert.equal(savedText(session.messages[0]), 'Survive a restart')
      const reply = session.messages[1]!
      assert.equal(reply.metadata?.interrupted, 'restart')
      assert.equal(reply.metadata?.error, INTERRUPTED_BY_RESTART)
      assert.match(savedText(reply), /^w0 /, 'the partial answer is kept')
      stack.gateway.respondWith(() => ({ text: 'back again' }))
      await readSseEvents(await start(id, 'Still there?'))
      const next = await saved(id)
      assert.equal(savedText(next.messages[3]), 'back again')
    } finally {
      stack.gateway.respondWith(undefined)
    }
  })

  test('a host that crashed mid-turn closes its turns at its next start; another host’s are left until their lease runs out', async () => {
    const db = stack.host.resources.databases.application.db
    const [crashed, elsewhere, abandoned] = [
      await newSession(),
      await newSession(),
      await newSession(),
    ]
    const own = liveTurnHost(Number(new URL(stack.host.url).port))
    const plant = (sessionId: string, host: string, text: string, heartbeat: string) =>
      db.execute(sql`insert into popagent_live_turns
        (session_id, turn_id, host, message, started_at, heartbeat_at)
        values (${sessionId}, ${`trn_${sessionId.slice(4)}`}, ${host},
          ${JSON.stringify(userMessage(text))}::jsonb, now(), ${heartbeat}::timestamptz)`)
    // What a host killed mid-turn leaves: its marks, nothing saved.
    await plant(crashed, own, 'Lost in a crash', new Date().toISOString())
    await plant(elsewhere, 'other-host:3100', 'Running elsewhere', new Date().toISOString())
    await plant(abandoned, 'gone-host:3100', 'Left by a gone host', '2020-01-01T00:00:00Z')
    await stack.restartHost()

    for (const [id, text] of [
      [crashed, 'Lost in a crash'],
      [abandoned, 'Left by a gone host'],
    ] as const) {
      const session = await getSession(id)
      assert.equal(session.liveTurn, null, text)
      assert.equal(session.messages.length, 2, text)
      assert.equal(savedText(session.messages[0]), text)
      assert.equal(session.messages[1]?.role, 'assistant')
      assert.equal(session.messages[1]?.metadata?.interrupted, 'restart')
      assert.equal(session.messages[1]?.metadata?.error, INTERRUPTED_BY_RESTART)
    }
    const live = await getSession(elsewhere)
    assert.equal(live.liveTurn?.turnId, `trn_${elsewhere.slice(4)}`)
    assert.equal(live.messages.length, 0)
    const refused = await errorJson(await start(elsewhere, 'Me too'), 409)
    assert.equal(refused.error.code, 'TURN_IN_PROGRESS')
  })
})
