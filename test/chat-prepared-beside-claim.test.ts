/**
 * A chat turn prepares its run while its claim is in flight and reports nothing of it until the
 * claim lets the run start (compute-host/runs/chat-turn.ts, `admission` in prepare-run.ts). Real
 * host on the test database and the scripted gateway; the host's own live turns sit behind a
 * gate, so the claim can be held back or refused at a chosen moment, and the agent factory is
 * the host's, watched for what it builds and releases.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { createLogger } from '../compute-host/log.ts'
import type { AgentFactory } from '../compute-host/agents/factory.ts'
import { startChatTurn } from '../compute-host/runs/chat-turn.ts'
import type { LiveTurns } from '../compute-host/runs/live-turns.ts'
import { runDeps } from '../compute-host/runs/run-deps.ts'
import type { RunEvent } from '../compute-host/runs/run-events.ts'
import { TurnInProgress } from '../runtime/sessions/errors.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient } from './support/typed-client.ts'
import { pgvectorMissing } from './support/pgvector.ts'
import { until } from './support/until.ts'

const ANSWER = 'prepared and answered'
let stack: TestStack
const events: RunEvent[] = []

const NO_VECTORS = await pgvectorMissing()

before(async () => {
  stack = await startTestStack({ models: [{ id: 'remote/a' }] })
  // Recall's vector leg sends the query to the embedding model: a model call the prompt must not
  // reach before the turn may start.
  const api = typedClient(stack.edge()).api
  await okJson(await api.settings.memory.$patch({ json: { embeddingModel: 'embed/test' } }), 200)
  stack.gateway.respondWith(() => ({ text: ANSWER }))
  stack.host.resources.observers.addRunObserver((event) => void events.push(event))
})
after(() => stack.stop())

const newSession = async () =>
  (await okJson(await typedClient(stack.edge()).api.sessions.$post({ json: {} }))).id

const chatRequest = (sessionId: string, text: string) => ({
  sessionId,
  workspaceId: 'wsp_default',
  model: 'remote/a',
  message: {
    id: `u_${sessionId}`,
    role: 'user' as const,
    parts: [{ type: 'text' as const, text }],
  },
})

/** The answer's text, from the turn's server-sent events. */
async function answerOf(stream: ReadableStream<Uint8Array>): Promise<string> {
  const lines = (await new Response(stream).text()).split('\n')
  return lines
    .filter((line) => line.startsWith('data: {'))
    .map((line) => JSON.parse(line.slice('data: '.length)) as { type: string; delta?: string })
    .filter((chunk) => chunk.type === 'text-delta')
    .map((chunk) => chunk.delta)
    .join('')
}

/** The embedding requests that carried `text` anywhere. */
const embeddingsOf = (text: string) =>
  stack.gateway.requests.filter(
    (r) => r.path === '/v1/embeddings' && JSON.stringify(r.body).includes(text),
  )

/**
 * Recall's searches for `query`: the query embedded alone (indexing a finished turn embeds its
 * question and answer together, after the turn, and is not one of them).
 */
const searchesFor = (query: string) =>
  stack.gateway.requests.filter(
    (r) => r.path === '/v1/embeddings' && (r.body?.input as unknown[] | undefined)?.includes(query),
  )

const eventsOf = (sessionId: string) => events.filter((e) => e.run.sessionId === sessionId)

/** The host's run deps, with its agent factory watched: every team built, and whether released. */
function watchedDeps(overrides: Partial<ReturnType<typeof runDeps>> = {}) {
  const $ = stack.host.resources
  const built: { disposed: boolean }[] = []
  const agents: AgentFactory = {
    ...$.agents,
    async build(options) {
      const team = await $.agents.build(options)
      const record = { disposed: false }
      built.push(record)
      return {
        ...team,
        dispose: async () => {
          record.disposed = true
          await team.dispose()
        },
      }
    },
  }
  const log = createLogger({ write: () => {} })
  return { deps: { ...runDeps($, log), agents, ...overrides }, built }
}

/** The host's live turns, each claim made only once `gate` opens. */
const gated = (gate: Promise<unknown>): Pick<LiveTurns, 'claim'> => ({
  claim: async (turn) => {
    await gate
    return stack.host.resources.liveTurns.claim(turn)
  },
})

test('the agents are built while the claim waits, and the run is reported only once it is made', async () => {
  const sessionId = await newSession()
  const { deps, built } = watchedDeps()
  let open!: () => void
  const gate = new Promise<void>((resolve) => (open = resolve))
  const prompt = 'Hello from a held claim'
  const starting = startChatTurn(deps, chatRequest(sessionId, prompt), gated(gate))
  // Sequential preparation would wait for the claim before building anything.
  await until(() => built.length === 1, 10_000, 'the team to be built before the claim')
  await sleep(60)
  assert.deepEqual(eventsOf(sessionId), [], 'a run was reported before its claim was made')
  assert.deepEqual(embeddingsOf(prompt), [], 'the prompt reached a model before its claim')
  open()
  assert.equal(await answerOf(await starting), ANSWER)
  if (!NO_VECTORS) assert.equal(searchesFor(prompt).length, 1, 'recall ran once admitted')
  await until(() => eventsOf(sessionId).some((e) => e.type === 'run-end'))
  const start = eventsOf(sessionId).find((e) => e.type === 'run-start')
  assert.ok(start && start.type === 'run-start')
  // The wait for the claim shows as a phase of its own, after the agents' build.
  const phases = start.preparation!.phases
  assert.deepEqual(Object.keys(phases).slice(-2), ['agents', 'claim'])
  assert.ok(phases.claim! >= 50, `the claim's wait was ${phases.claim} ms`)
  assert.equal(built[0]!.disposed, true, 'the run released its agents at its end')
})

test('a claim refused before or after the agents are built reports no run and releases them', async () => {
  for (const when of ['at once', 'after the build'] as const) {
    const sessionId = await newSession()
    const { deps, built } = watchedDeps()
    const live: Pick<LiveTurns, 'claim'> = {
      claim: async (turn) => {
        if (when === 'after the build') await until(() => built.length === 1)
        throw new TurnInProgress({ sessionId: turn.sessionId })
      },
    }
    const prompt = `refused ${when}`
    await assert.rejects(startChatTurn(deps, chatRequest(sessionId, prompt), live), TurnInProgress)
    // The driver answers once what it prepared is released.
    assert.ok(
      built.every((team) => team.disposed),
      `${when}: a team built beside a refused claim was kept`,
    )
    await sleep(50)
    assert.deepEqual(eventsOf(sessionId), [], `${when}: a refused turn reported a run`)
    const reached = stack.gateway.requests.filter((r) => JSON.stringify(r.body).includes(prompt))
    assert.deepEqual(reached, [], `${when}: the prompt reached a model`)
  }
})

test('a claim that redacts the message again has the run prepared anew with the new redaction', async () => {
  const secret = 'tok-prepared-beside-claim-5f2e9c1d7a'
  const { redactor } = stack.host.resources
  const sessionId = await newSession()
  let synced = false
  const { deps, built } = watchedDeps({
    // Another host stored `secret` since this host last read the vault: the first claim is
    // refused for it, this host catches up and redacts the message again.
    vault: {
      known: () => new Map([['sec_elsewhere', synced ? 2 : 1]]),
      sync: async () => {
        redactor.set('sec_elsewhere', [secret])
        synced = true
        return true
      },
    },
  })
  const live: Pick<LiveTurns, 'claim'> = {
    claim: async ({ vaultKnown, ...turn }) => {
      if (vaultKnown?.get('sec_elsewhere') === 1) {
        // Refused only once the first preparation holds its team, so it must be dropped.
        await until(() => built.length === 1)
        throw new TurnInProgress({ sessionId: turn.sessionId })
      }
      return stack.host.resources.liveTurns.claim(turn)
    },
  }
  try {
    const turn = startChatTurn(deps, chatRequest(sessionId, `use ${secret} please`), live)
    assert.equal(await answerOf(await turn), ANSWER)
    await until(() => eventsOf(sessionId).some((e) => e.type === 'run-end'))
    const starts = eventsOf(sessionId).filter((e) => e.type === 'run-start')
    assert.equal(starts.length, 1)
    assert.equal(starts[0]!.type === 'run-start' && starts[0]!.request, 'use [REDACTED] please')
    assert.equal(built.length, 2, 'the run was not prepared again')
    assert.ok(built.every((team) => team.disposed))
    assert.doesNotMatch(JSON.stringify(eventsOf(sessionId)), new RegExp(secret))
    // The run prepared anew works under the turn's own signal, not the dropped preparation's:
    // its recall searched (and embedded the new redaction) instead of stopping at once.
    if (!NO_VECTORS) assert.equal(searchesFor('use [REDACTED] please').length, 1)
    assert.deepEqual(embeddingsOf(secret), [])
  } finally {
    redactor.remove('sec_elsewhere')
  }
})
