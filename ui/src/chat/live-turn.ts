import { batch, createSignal } from 'solid-js'
import type { ChatRequest } from '../../../runtime/contracts/chat.ts'
import type { LiveTurnView } from '../../../runtime/contracts/live-turns.ts'
import { fetchSession, refreshSession, showSaved } from '../queries/sessions.ts'
import { joinTurn, startTurn, stopTurn } from './client.ts'
import type { Drafts } from './drafts.ts'
import type { ShownMessage } from './messages.ts'
import { applyChunk, closeReply, emptyReply, type ChatChunk, type ReplyState } from './reducer.ts'
import { settleTurn } from './settle.ts'
import { readSse } from './sse.ts'

/**
 * A turn this page follows, per session. They live in the chat's provider (chat-context.tsx),
 * not in the page, so they survive a visit to another page.
 *
 * A turn runs on the server whatever happens to this page: reloading or closing it only stops
 * reading. Opening a session whose turn is running (the session says so, `liveTurn`) joins it
 * from its start, so a reload, a second tab or the next visit shows it streaming to the end; a
 * dropped connection joins again from the last chunk received. Stop (`stopTurn`) asks the server
 * to stop it, from whichever tab; every tab's stream then ends, marked stopped.
 */
export type LiveTurn = {
  sessionId: string
  user: ShownMessage
  reply: ReplyState
  /** streaming → settling (waiting for the saved turn) → saved, or `ended` when it never showed. */
  phase: 'streaming' | 'settling' | 'saved' | 'ended'
  /** The session revision that holds this turn, once saved. */
  savedAs?: number
  /** The server's id of the turn, once known (a joined turn's from its session). */
  turnId?: string
  /** This page's reading of the turn (its identity here); aborting it never stops the turn. */
  controller: AbortController
}

// A dropped connection is joined again this many times, waiting a little longer each time.
const REJOIN_ATTEMPTS = 5
const REJOIN_DELAY_MS = 300

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))
const following = (t: LiveTurn | undefined) => t?.phase === 'streaming' || t?.phase === 'settling'

export function createLiveTurn(drafts: Drafts) {
  const [turns, setTurns] = createSignal<ReadonlyMap<string, LiveTurn>>(new Map())
  const [refused, setRefused] = createSignal<{ sessionId: string; error: unknown }>()
  // Stops asked for before the server had the turn (its POST still on the way).
  const stopAsked = new Set<AbortController>()

  const put = (live: LiveTurn) => setTurns((m) => new Map(m).set(live.sessionId, live))
  const drop = (live: LiveTurn) =>
    setTurns((m) => {
      if (m.get(live.sessionId)?.controller !== live.controller) return m
      const next = new Map(m)
      next.delete(live.sessionId)
      return next
    })
  const update = (live: LiveTurn, change: (t: LiveTurn) => LiveTurn) =>
    setTurns((m) => {
      const t = m.get(live.sessionId)
      return t && t.controller === live.controller ? new Map(m).set(t.sessionId, change(t)) : m
    })

  /**
   * Reads the turn's stream into the reply, joining again from the last chunk when the
   * connection drops before the turn ended, then waits for the saved turn and shows it.
   */
  async function follow(live: LiveTurn, first: ReadableStream<Uint8Array> | undefined) {
    // One state update per network read, not per chunk: a fast stream delivers hundreds of small
    // deltas in one read, and each update re-runs the page's reactive work.
    let pending: ChatChunk[] = []
    const flush = () => {
      if (pending.length === 0) return
      const chunks = pending
      pending = []
      update(live, (t) => ({ ...t, reply: chunks.reduce(applyChunk, t.reply) }))
    }
    let body = first
    let lastId = 0
    let finished = false
    let attempt = 0
    while (body && !finished) {
      try {
        finished = await readSse(body, (chunk, id) => {
          if (id !== undefined) lastId = id
          if (pending.push(chunk as ChatChunk) === 1) queueMicrotask(flush)
        })
      } catch {
        // The read failed (the network, or this page stopped reading): join again below.
      }
      flush()
      if (finished || live.controller.signal.aborted) break
      const next = await rejoinAfter(live, lastId, () => ++attempt)
      // Undefined: the turn ended meanwhile (its saved session has the rest). 'gone': the
      // server stayed out of reach, and the reply says the connection closed.
      if (next === 'gone') update(live, (t) => ({ ...t, reply: closeReply(t.reply) }))
      body = next === 'gone' ? undefined : next
    }
    let reply = live.reply
    update(live, (t) => {
      reply = t.reply
      return { ...t, phase: 'settling' }
    })
    // The saved revision comes on the reply's last metadata chunk of a saved turn.
    const session = await settleTurn({
      savedRevision: reply.metadata?.savedRevision,
      userMessageId: live.user.id,
      fetchSession: () => fetchSession(live.sessionId),
    })
    // The page shows the live copy until its session is at the saved revision, then the saved
    // copy in its place, in one update: the reply keeps its rendered row. One never saved stays.
    update(live, (t) =>
      session ? { ...t, phase: 'saved', savedAs: session.revision } : { ...t, phase: 'ended' },
    )
    if (session) await showSaved(session)
    else await refreshSession(live.sessionId)
  }

  /**
   * Joins the turn again after chunk `after` once its connection dropped: its stream, undefined
   * when it has ended meanwhile, or 'gone' when the server stayed out of reach.
   */
  async function rejoinAfter(live: LiveTurn, after: number, nextAttempt: () => number) {
    for (let attempt = nextAttempt(); attempt <= REJOIN_ATTEMPTS; attempt = nextAttempt()) {
      await sleep(REJOIN_DELAY_MS * attempt)
      try {
        return await joinTurn(live.sessionId, after, live.controller.signal)
      } catch {
        if (live.controller.signal.aborted) break
      }
    }
    return 'gone' as const
  }

  /** Starts and follows one turn; the message text returns to its session's draft if refused. */
  async function runTurn(request: ChatRequest, text: string) {
    const live: LiveTurn = {
      sessionId: request.sessionId,
      user: request.message,
      reply: emptyReply(),
      phase: 'streaming',
      controller: new AbortController(),
    }
    batch(() => {
      setRefused(undefined)
      put(live)
    })
    let body: ReadableStream<Uint8Array>
    try {
      body = await startTurn(request, live.controller.signal)
    } catch (error) {
      batch(() => {
        drop(live)
        if (!drafts.draft(request.sessionId)) drafts.setDraft(request.sessionId, text)
        setRefused({ sessionId: request.sessionId, error })
      })
      return
    }
    // The lists mark the session running; a Stop asked for while the turn was starting goes now.
    void refreshSession()
    if (stopAsked.delete(live.controller)) void stop(request.sessionId)
    await follow(live, body)
  }

  /**
   * Follows the turn running in a session this page did not start (or started before a reload):
   * from its start, unless this page follows it already.
   */
  async function rejoin(sessionId: string, running: Pick<LiveTurnView, 'turnId' | 'message'>) {
    const t = turns().get(sessionId)
    if (following(t) || (t && (t.turnId ?? t.reply.metadata?.turnId) === running.turnId)) return
    const live: LiveTurn = {
      sessionId,
      turnId: running.turnId,
      user: running.message,
      reply: emptyReply(),
      phase: 'streaming',
      controller: new AbortController(),
    }
    put(live)
    const body = await joinTurn(sessionId, 0, live.controller.signal).catch(() => undefined)
    if (body) return follow(live, body)
    // It ended (or cannot be reached): the session, read again, shows what was saved.
    drop(live)
    await refreshSession(sessionId)
  }

  async function stop(sessionId: string) {
    const t = turns().get(sessionId)
    if (t?.phase !== 'streaming') return
    try {
      const answer = await stopTurn(sessionId)
      // Not running yet: the turn's POST is still on its way; the stop follows it.
      if (!answer.stopped) stopAsked.add(t.controller)
    } catch (error) {
      setRefused({ sessionId, error })
    }
  }

  return {
    liveTurn: (sessionId: string | undefined) =>
      sessionId === undefined ? undefined : turns().get(sessionId),
    /** Why the last turn never started or could not be stopped (archived, busy, unreachable). */
    turnRefused: refused,
    clearRefusal: () => setRefused(undefined),
    /** Whether a turn in this session is streaming or being saved. */
    turnBusy: (sessionId: string | undefined) =>
      sessionId !== undefined && following(turns().get(sessionId)),
    /** Asks the server to stop the session's turn (whichever tab started it). */
    stopTurn: (sessionId: string | undefined) => (sessionId ? stop(sessionId) : undefined),
    runTurn,
    rejoinTurn: rejoin,
  }
}
export type LiveTurns = ReturnType<typeof createLiveTurn>
