/**
 * The turn-latency benchmark's own roles, speaking chat-turn-servers.ts's protocol (`@url`, `cpu`
 * and the role's extra commands on stdin, answered `@<command> <value>` on stdout):
 *   node bench/turn-latency-servers.ts gateway         the scripted model, instant replies, which
 *                                                      notes when each chat request arrived
 *   node bench/turn-latency-servers.ts host <json>     popagent's real compute host (as
 *                                                      chat-turn-servers.ts's) with a run observer
 *                                                      that keeps each run-start's preparation
 * The edge and Mastra's server are chat-turn-servers.ts's roles, unchanged.
 *
 * Gateway commands: `arrivals` answers the arrival times (epoch ms, sub-millisecond) of the chat
 * requests since it was last asked, as a JSON array; `mode reply|team` chooses the script (every
 * request answered at once with the scripted text, or a supervisor that delegates once to each
 * specialist it is offered, one after the other, and then answers); `recorded` answers the bodies
 * of the chat requests recorded since `mode team` was set, as JSON; `toolNames` the names of the
 * tools the last chat request offered, as JSON.
 * Host commands: `prep` answers the run-start preparations since it was last asked (run and
 * session ids, startedAt, phases), as a JSON array; `storage` the Mastra storage calls settled
 * since it was last asked (name, start, end; see turn-latency-storage.ts).
 */
import type { RunEvent } from '../compute-host/runs/run-events.ts'
import { startScriptedGateway, type RecordedRequest } from '../test/support/scripted-gateway.ts'
import { traceStorage } from './turn-latency-storage.ts'
import { answerCommands, MODEL, REPLY, startHost, type HostArgs } from './chat-turn-servers.ts'

/** Epoch milliseconds with sub-millisecond resolution, comparable across processes. */
export const epochNow = () => performance.timeOrigin + performance.now()

/** The delegation tools the supervisor offers (`agent-<id>`), from a recorded chat request. */
export const delegationTools = (body: any): string[] =>
  ((body?.tools ?? []) as Array<{ function?: { name?: string } }>)
    .map((t) => t.function?.name ?? '')
    .filter((name) => name.startsWith('agent-'))

/** The names of the tools whose results the request carries (what was already called). */
const calledTools = (body: any): string[] => {
  const ids = new Map<string, string>()
  for (const m of body?.messages ?? []) {
    for (const call of m.tool_calls ?? []) ids.set(call.id, call.function?.name)
  }
  return (body?.messages ?? [])
    .filter((m: { role: string }) => m.role === 'tool')
    .map((m: { tool_call_id: string }) => ids.get(m.tool_call_id) ?? '')
}

async function gateway() {
  const gw = await startScriptedGateway({ models: [{ id: MODEL, contextWindow: 131_072 }] })
  let arrivals: number[] = []
  let mode: 'reply' | 'team' = 'reply'
  let recorded: RecordedRequest[] = []
  let toolNames: string[] = []
  gw.respondWith((request) => {
    arrivals.push(epochNow())
    toolNames = ((request.body?.tools ?? []) as Array<{ function?: { name?: string } }>).map(
      (t) => t.function?.name ?? '?',
    )
    // Recorded requests would grow without bound over hundreds of turns.
    gw.requests.length = 0
    if (mode === 'reply') return { text: REPLY }
    recorded.push(request)
    const offered = delegationTools(request.body)
    if (offered.length === 0) return { text: REPLY } // a specialist answers at once
    const called = new Set(calledTools(request.body))
    const next = offered.find((tool) => !called.has(tool))
    if (!next) return { text: REPLY }
    return {
      toolCalls: [{ name: next, arguments: { prompt: `Please handle your part: ${next}` } }],
    }
  })
  answerCommands({
    arrivals: () => {
      const taken = arrivals
      arrivals = []
      return JSON.stringify(taken)
    },
    mode: (next) => {
      if (next !== 'reply' && next !== 'team') return `unknown mode ${next}`
      mode = next
      recorded = []
      return 'ok'
    },
    toolNames: () => JSON.stringify(toolNames),
    recorded: () => {
      const taken = recorded
      recorded = []
      return JSON.stringify(taken.map((r) => r.body))
    },
  })
  console.log(`@url ${gw.url}`)
}

export type Preparation = {
  runId: string
  sessionId?: string
  startedAt: number
  phases: Record<string, number>
  /** The preflight brief's time: built beside the agents and memory, not one of the laps. */
  briefMs?: number
}

async function host(args: HostArgs) {
  const storage = traceStorage()
  const started = await startHost(args)
  let preparations: Preparation[] = []
  started.resources.observers.addRunObserver((event: RunEvent) => {
    if (event.type === 'brief') {
      const p = preparations.find((q) => q.runId === event.run.runId)
      if (p) p.briefMs = event.durationMs
      return
    }
    if (event.type !== 'run-start') return
    preparations.push({
      runId: event.run.runId,
      ...(event.run.sessionId && { sessionId: event.run.sessionId }),
      startedAt: event.preparation.startedAt,
      phases: { ...event.preparation.phases },
    })
  })
  answerCommands({
    storage: () => JSON.stringify(storage.take()),
    prep: () => {
      const taken = preparations
      preparations = []
      return JSON.stringify(taken)
    },
  })
  console.log(`@url ${started.url}`)
}

if (import.meta.main) {
  process.on('SIGTERM', () => process.exit(0))
  const [role, json] = process.argv.slice(2)
  if (role === 'gateway') await gateway()
  else if (role === 'host') await host(JSON.parse(json!))
  else throw new Error('usage: turn-latency-servers.ts gateway | host <json>')
}
