import * as Sessions from '../../runtime/sessions/index.ts'
import { createId } from '../../runtime/ids.ts'
import type { ChannelRow, BindingRow } from '../../runtime/channels/index.ts'
import { startChatTurn } from '../runs/chat-turn.ts'
import type { LiveTurns } from '../runs/live-turns.ts'
import type { RunDeps } from '../runs/prepare-run.ts'
import { bindSession, lastAnswer, sessionUsable } from './store.ts'
import type { ChannelAdapter } from './types.ts'

/**
 * The channel driver of the run path, the third beside runs/chat-turn.ts and
 * runs/task-attempt.ts. It is the chat turn itself, entered with the binding's session: the same
 * live-turn claim (one turn per session, so per binding; a second is TURN_IN_PROGRESS, and any
 * client, the web UI included, joins or stops it), the same prepareRun, hooks, redaction and
 * save. What it adds is the channel's side: a session made for a binding on its first message,
 * "typing…" while the run goes, and the saved answer read back for the outbox.
 */
const TYPING_EVERY_MS = 4_000

export async function runChannelTurn(
  deps: { run: RunDeps; liveTurns: Pick<LiveTurns, 'claim'> },
  turn: {
    channel: ChannelRow
    adapter: ChannelAdapter
    binding: BindingRow
    text: string
    requestId?: string
    /** Each text delta of the answer as it streams (answer-stream.ts). */
    onText?: (delta: string) => void
  },
): Promise<{ sessionId: string; text: string; error?: string; aborted?: boolean }> {
  const { db } = deps.run
  const { channel, adapter, binding } = turn
  const sessionId = await sessionOf(db, channel, binding)
  const typing = startTyping(adapter, binding)
  try {
    const stream = await startChatTurn(
      deps.run,
      {
        sessionId,
        workspaceId: channel.workspaceId,
        ...(channel.model && { model: channel.model }),
        message: {
          id: createId('message'),
          role: 'user',
          parts: [{ type: 'text', text: turn.text }],
        },
      },
      deps.liveTurns,
      turn.requestId,
    )
    // Read to its end: the turn's messages are saved before its stream finishes. The answer
    // sent is the saved one; the streamed text only shows it while it is written.
    if (turn.onText) await readTextDeltas(stream, turn.onText)
    else {
      const reader = stream.getReader()
      while (!(await reader.read()).done) {
        /* the chunks are for web clients; the channel gets the saved answer */
      }
    }
  } finally {
    typing.stop()
  }
  const answer = await lastAnswer(db, sessionId)
  return { sessionId, text: answer?.text ?? '', ...answer }
}

/**
 * Reads a chat stream (the UI-message stream's server-sent events, already redacted on the run
 * path) to its end, handing each text delta to `onText`.
 */
async function readTextDeltas(
  stream: ReadableStream<Uint8Array>,
  onText: (delta: string) => void,
): Promise<void> {
  const reader = stream.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return
    buffer += decoder.decode(value, { stream: true })
    let end: number
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const event = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      for (const line of event.split('\n')) {
        if (!line.startsWith('data: ') || line === 'data: [DONE]') continue
        try {
          const chunk = JSON.parse(line.slice(6)) as { type?: string; delta?: unknown }
          if (chunk.type === 'text-delta' && typeof chunk.delta === 'string') onText(chunk.delta)
        } catch {
          /* not a chunk this reader knows */
        }
      }
    }
  }
}

/** The binding's session, or a new one in the channel's workspace (first message, or `/new`). */
export async function sessionOf(
  db: RunDeps['db'],
  channel: ChannelRow,
  binding: BindingRow,
  fresh = false,
): Promise<string> {
  if (!fresh && binding.sessionId && (await sessionUsable(db, binding.sessionId))) {
    return binding.sessionId
  }
  const thread = binding.thread ? ` · ${binding.thread}` : ''
  const session = await Sessions.create(db, {
    workspaceId: channel.workspaceId,
    title: `${channel.name}: ${binding.conversation}${thread}`.slice(0, 200),
  })
  await bindSession(db, binding.id, session.id)
  binding.sessionId = session.id
  return session.id
}

/** "typing…" now and every few seconds until the turn ends; a failure only costs the hint. */
function startTyping(adapter: ChannelAdapter, binding: BindingRow) {
  if (!adapter.typing) return { stop() {} }
  const controller = new AbortController()
  const send = () =>
    void adapter
      .typing?.({ conversation: binding.conversation, thread: binding.thread }, controller.signal)
      .catch(() => {})
  send()
  const timer = setInterval(send, TYPING_EVERY_MS)
  timer.unref?.()
  return {
    stop() {
      clearInterval(timer)
      controller.abort()
    },
  }
}
