import { batch, createSignal } from 'solid-js'
import type { ChatRequest } from '../../../runtime/contracts/chat.ts'
import { fetchSession, showSaved } from '../queries/sessions.ts'
import { startTurn } from './client.ts'
import type { Drafts } from './drafts.ts'
import type { ShownMessage } from './messages.ts'
import { applyChunk, closeReply, emptyReply, type ChatChunk, type ReplyState } from './reducer.ts'
import { settleTurn } from './settle.ts'
import { readSse } from './sse.ts'

/**
 * The turn in flight. It lives in the chat's provider (chat-context.tsx), not in the page, so it
 * survives a visit to another page. One turn at a time; `stopTurn` aborts its fetch, which closes
 * the connection and so stops the run at the host and the gateway.
 */
export type LiveTurn = {
  sessionId: string
  user: ShownMessage
  reply: ReplyState
  /** streaming → settling (waiting for the saved turn) → saved, or `ended` when it never showed. */
  phase: 'streaming' | 'settling' | 'saved' | 'ended'
  /** The session revision that holds this turn, once saved. */
  savedAs?: number
  controller: AbortController
}

export function createLiveTurn(drafts: Drafts) {
  const [turn, setTurn] = createSignal<LiveTurn>()
  const [refused, setRefused] = createSignal<{ sessionId: string; error: unknown }>()

  /** Streams one turn; the message text returns to its session's draft if it was refused. */
  async function runTurn(request: ChatRequest, text: string) {
    const live: LiveTurn = {
      sessionId: request.sessionId,
      user: request.message,
      reply: emptyReply(),
      phase: 'streaming',
      controller: new AbortController(),
    }
    const update = (change: (t: LiveTurn) => LiveTurn) =>
      setTurn((t) => (t && t.controller === live.controller ? change(t) : t))
    batch(() => {
      setRefused(undefined)
      setTurn(live)
    })
    let body: ReadableStream<Uint8Array>
    try {
      body = await startTurn(request, live.controller.signal)
    } catch (error) {
      batch(() => {
        setTurn(undefined)
        if (!drafts.draft(request.sessionId)) drafts.setDraft(request.sessionId, text)
        if (!live.controller.signal.aborted) setRefused({ sessionId: request.sessionId, error })
      })
      return
    }
    // One state update per network read, not per chunk: a fast stream delivers hundreds of small
    // deltas in one read, and each update re-runs the page's reactive work.
    let pending: ChatChunk[] = []
    const flush = () => {
      if (pending.length === 0) return
      const chunks = pending
      pending = []
      update((t) => ({ ...t, reply: chunks.reduce(applyChunk, t.reply) }))
    }
    let reply = live.reply
    try {
      const finished = await readSse(body, (chunk) => {
        if (pending.push(chunk as ChatChunk) === 1) queueMicrotask(flush)
      })
      flush()
      if (!finished) update((t) => ({ ...t, reply: closeReply(t.reply) }))
    } catch {
      flush()
      update((t) => ({
        ...t,
        reply: live.controller.signal.aborted
          ? applyChunk(t.reply, { type: 'abort' })
          : closeReply(t.reply),
      }))
    }
    update((t) => {
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
    setTurn((t) =>
      t?.controller !== live.controller
        ? t
        : session
          ? { ...t, phase: 'saved', savedAs: session.revision }
          : { ...t, phase: 'ended' },
    )
    if (session) await showSaved(session)
  }

  return {
    liveTurn: turn,
    /** Why the last turn never started (archived session, unknown model, server unreachable). */
    turnRefused: refused,
    clearRefusal: () => setRefused(undefined),
    turnBusy: () => {
      const t = turn()
      return t?.phase === 'streaming' || t?.phase === 'settling'
    },
    stopTurn() {
      const t = turn()
      if (t?.phase === 'streaming') t.controller.abort()
    },
    runTurn,
  }
}
export type LiveTurns = ReturnType<typeof createLiveTurn>
