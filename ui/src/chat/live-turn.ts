import { batch, createSignal } from 'solid-js'
import type { ChatRequest } from '../../../runtime/contracts/chat.ts'
import { getSession, startTurn, type SessionView } from './client.ts'
import type { ShownMessage } from './messages.ts'
import { applyChunk, closeReply, emptyReply, type ChatChunk, type ReplyState } from './reducer.ts'
import { readSse } from './sse.ts'
import { draft, setDraft } from './state.ts'

/**
 * The turn in flight, kept outside the page so it survives the page's remounts (a new chat's first
 * message moves the page to `/sessions/:id`). One turn at a time; `stopTurn` aborts its fetch,
 * which closes the connection and so stops the run at the host and the gateway.
 */
export type LiveTurn = {
  sessionId: string
  user: ShownMessage
  reply: ReplyState
  /** streaming → settling (waiting for the saved turn) → gone, or `ended` when it never showed. */
  phase: 'streaming' | 'settling' | 'ended'
  controller: AbortController
}

const [turn, setTurn] = createSignal<LiveTurn>()
const [saved, setSaved] = createSignal<SessionView>()
const [refused, setRefused] = createSignal<{ sessionId: string; error: unknown }>()

export const liveTurn = turn
/** The session as saved with the last turn, for the page to show in place of the live copy. */
export const savedAfterTurn = saved
/** Why the last turn never started (archived session, unknown model, server unreachable). */
export const turnRefused = refused
export const clearRefusal = () => setRefused(undefined)

export const turnBusy = () => {
  const t = turn()
  return t !== undefined && t.phase !== 'ended'
}

export function stopTurn() {
  const t = turn()
  if (t?.phase === 'streaming') t.controller.abort()
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Streams one turn into `liveTurn`; the message text returns to the draft if it was refused. */
export async function runTurn(request: ChatRequest, text: string) {
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
      if (!draft()) setDraft(text)
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
  update((t) => ({ ...t, phase: 'settling' }))
  await settle(live)
}

/**
 * The host saves the turn when its stream ends (an aborted one a moment later): wait until the
 * session holds the user's message, then hand the saved session over in place of the live copy.
 */
async function settle(live: LiveTurn) {
  let session: SessionView | undefined
  for (let i = 0; i < 50 && !session; i++) {
    const s = await getSession(live.sessionId).catch(() => undefined)
    if (s?.messages.some((m) => m.id === live.user.id)) session = s
    else await sleep(100)
  }
  batch(() => {
    if (session) setSaved(session)
    setTurn((t) =>
      t?.controller !== live.controller ? t : session ? undefined : { ...t, phase: 'ended' },
    )
  })
}
