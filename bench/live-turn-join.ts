/**
 * Joining a live turn. A chat turn runs on the compute host whatever happens to the request that
 * started it, and any client joins it (`GET /api/chat/:id/stream`): it is sent the chunks kept so
 * far, then follows the turn live (compute-host/runs/live-turns.ts, turn-stream.ts).
 *
 * Over the real Node edge and the real host API (routes, host client, the host's join handler,
 * the live-turn registry with its database row), with one stand-in: the turn itself is a
 * synthetic stream that writes a `start`, then a text delta every few milliseconds as a fast
 * model would, and saves the turn at its end as a real one does (Mastra, agents and the gateway
 * are the chat-turn bench's subject, not this one's). Per round, on a new session:
 *
 * - time to first chunk: the original client's (`POST /api/chat` sent → its first event) and a
 *   second client's joining mid-turn (`GET …/stream` sent → its first event, the replay);
 *   the figure is their difference, the time joining adds (goal ≤ 10 ms);
 * - live lag: how much later than the original client the joined one receives each chunk the
 *   turn writes after it joined (both follow the same turn; goal ≤ 10 ms).
 *
 * And, in process, what a long turn keeps: an answer of many deltas, streamed past both bounds
 * (10,000 chunks, 8 MiB), keeps within them and still replays whole (kept-chunks.ts).
 */
import { UI_MESSAGE_STREAM_HEADERS, type UIMessageChunk } from 'ai'
import { createLogger } from '../compute-host/log.ts'
import { createEngineHandlers } from '../compute-host/host-handlers.ts'
import type { HostCore, HostResources } from '../compute-host/resources.ts'
import { createKeptChunks, KEPT_CHUNK_LIMITS } from '../compute-host/runs/kept-chunks.ts'
import { createLiveTurns } from '../compute-host/runs/live-turns.ts'
import { createHostApp, listenHost, type EngineHandlers } from '../compute-host/server.ts'
import { openNodePostgres } from '../compute-host/database/postgres.ts'
import { parseEdgeConfig } from '../handlers/config.ts'
import { startNodeEdge } from '../handlers/entry.node.ts'
import { createId } from '../runtime/ids.ts'
import * as Sessions from '../runtime/sessions/index.ts'
import { saveLiveTurn } from '../runtime/sessions/live-turns.ts'
import { benchDatabase } from './database.ts'
import type { BenchMode, BenchResult } from './result.ts'
import { median } from './stats.ts'

const TOKEN = 'bench-live-turn-token-0123456789'
const DELTAS = 40
const DELTA_MS = 5
/** The joiner comes in once the original client holds this many chunks. */
const JOIN_AT = 12

/** A turn's stream as a fast model writes it: `start`, then a delta every DELTA_MS. */
function syntheticTurn(signal: AbortSignal, onEnd: () => Promise<void>) {
  let sent = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  return new ReadableStream<UIMessageChunk>({
    start(controller) {
      controller.enqueue({ type: 'start', messageId: createId('message') })
      controller.enqueue({ type: 'text-start', id: 't1' })
      const next = () => {
        if (signal.aborted || sent === DELTAS) {
          controller.enqueue({ type: 'text-end', id: 't1' })
          void onEnd().then(() => {
            controller.enqueue({ type: 'finish' })
            controller.close()
          })
          return
        }
        controller.enqueue({ type: 'text-delta', id: 't1', delta: `word${sent++} ` })
        timer = setTimeout(next, DELTA_MS)
      }
      timer = setTimeout(next, DELTA_MS)
    },
    cancel: () => clearTimeout(timer),
  })
}

/** Reads a stream's events, calling `seen(id, at)` as each arrives; resolves at its end. */
async function readEvents(res: Response, seen: (id: number, at: number) => void): Promise<void> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return
    const at = performance.now()
    buffer += value
    let end: number
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const id = /^id: (\d+)/.exec(buffer.slice(0, end))?.[1]
      buffer = buffer.slice(end + 2)
      if (id) seen(Number(id), at)
    }
  }
}

export async function benchLiveTurnJoin({ quick }: BenchMode): Promise<BenchResult[]> {
  const rounds = quick ? 3 : 40
  const database = await benchDatabase()
  const handle = openNodePostgres(database.url, { max: 4 })
  const db = handle.db
  const log = createLogger({ secrets: [], write: () => {} })
  const liveTurns = createLiveTurns({ db, log, host: 'bench:0' })
  // The host's own handlers over the resources they read here; `chat` runs the synthetic turn.
  const resources = {
    log,
    liveTurns,
    databases: { application: handle, observability: handle },
  } as unknown as HostResources
  const handlers: EngineHandlers = {
    ...createEngineHandlers(resources),
    chat: async (request) => {
      const turnId = createId('turn')
      const claimed = await liveTurns.claim({
        sessionId: request.sessionId,
        turnId,
        message: request.message,
      })
      const turn = syntheticTurn(claimed.signal, async () => {
        await saveLiveTurn(db, {
          sessionId: request.sessionId,
          turnId,
          messages: [request.message],
        })
      })
      return new Response(claimed.publish(turn), { headers: UI_MESSAGE_STREAM_HEADERS })
    },
  }
  const core = { log } as unknown as HostCore
  const host = await listenHost(
    createHostApp(core, Promise.resolve({ resources, handlers }), TOKEN),
    0,
  )
  const edge = await startNodeEdge({
    config: parseEdgeConfig({ POPAGENT_HOST_URL: host.url, POPAGENT_HOST_TOKEN: TOKEN }),
    db,
    observabilityDb: db,
    port: 0,
  })

  async function round() {
    const { id } = await Sessions.create(db, {})
    const original = new Map<number, number>()
    const joined = new Map<number, number>()
    let joinSent = 0
    let joining: Promise<void> | undefined
    const sent = performance.now()
    const res = await fetch(`${edge.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        sessionId: id,
        workspaceId: 'wsp_default',
        message: { id: `u_${id}`, role: 'user', parts: [{ type: 'text', text: 'go' }] },
      }),
    })
    if (res.status !== 200) throw new Error(`the turn did not start: ${await res.text()}`)
    await readEvents(res, (n, at) => {
      original.set(n, at)
      if (n !== JOIN_AT) return
      joinSent = performance.now()
      joining = fetch(`${edge.url}/api/chat/${id}/stream`).then((r) =>
        readEvents(r, (k, t) => void joined.set(k, t)),
      )
    })
    await joining
    if (joined.size !== original.size) throw new Error('the joined client missed chunks')
    const firstJoined = Math.min(...joined.values())
    const lags = [...original.keys()]
      .filter((n) => n > JOIN_AT + 1)
      .map((n) => joined.get(n)! - original.get(n)!)
    return {
      added: firstJoined - joinSent - (original.get(1)! - sent),
      original: original.get(1)! - sent,
      joined: firstJoined - joinSent,
      lag: median(lags),
    }
  }

  try {
    await round() // warms the routes, the connections and the statements
    const measured = []
    for (let i = 0; i < rounds; i++) measured.push(await round())
    const added = median(measured.map((m) => m.added))
    const lag = median(measured.map((m) => m.lag))
    const ms = (n: number) => n.toFixed(1)

    // A long answer in deltas of ten characters: its chunks stream past both bounds.
    const kept = createKeptChunks()
    const deltas = quick ? 170_000 : 400_000
    let streamed = 0
    kept.push({ type: 'start', messageId: 'msg_bench' })
    kept.push({ type: 'text-start', id: 't1' })
    for (let i = 0; i < deltas; i++) {
      streamed += kept.push({ type: 'text-delta', id: 't1', delta: 'tokenword ' }).json.length
    }
    kept.push({ type: 'text-end', id: 't1' })
    const size = kept.size()
    const replay = kept.replay(0)
    const replayed = replay.chunks
      .map((c) => JSON.parse(c.json) as { type: string; delta?: string })
      .filter((c) => c.type === 'text-delta')
      .reduce((length, c) => length + c.delta!.length, 0)
    const whole = replay.complete && replayed === deltas * 10
    const within =
      size.bytes <= KEPT_CHUNK_LIMITS.maxBytes && size.entries <= KEPT_CHUNK_LIMITS.maxChunks
    const mb = (bytes: number) => bytes / 2 ** 20

    return [
      {
        name: 'live turn: a joining client’s time to first chunk, added',
        goal: '≤ +10 ms',
        ratio: added,
        unit: 'ms',
        met: added <= 10,
        detail: `joined ${ms(median(measured.map((m) => m.joined)))} ms vs the original ${ms(median(measured.map((m) => m.original)))} ms, median of ${rounds} rounds`,
      },
      {
        name: 'live turn: a joined client’s lag behind the original',
        goal: '≤ +10 ms',
        ratio: lag,
        unit: 'ms',
        met: lag <= 10,
        detail: `per chunk written after it joined, median of ${rounds} rounds`,
      },
      {
        name: 'live turn: chunks kept for a long answer',
        goal: `≤ ${mb(KEPT_CHUNK_LIMITS.maxBytes)} MB, whole`,
        ratio: mb(size.bytes),
        unit: 'MB',
        met: within && whole,
        detail: `${deltas.toLocaleString()} deltas (${mb(streamed).toFixed(1)} MB streamed) kept as ${size.entries.toLocaleString()} entries; replays ${whole ? 'whole' : 'INCOMPLETE'}`,
      },
    ]
  } finally {
    await edge.close()
    await liveTurns.close()
    await host.close()
    await handle.close()
    await database.drop()
  }
}
