import { errorMessage } from '../../runtime/error-message.ts'
import { splitForChannel } from '../../runtime/channels/split-text.ts'
import type { Logger } from '../log.ts'
import { RateLimitedError, type ChannelAdapter, type ChannelTarget } from './types.ts'

/**
 * A channel answer shown while it is written (issue 38), for an adapter that can edit what it
 * sent (Telegram's editMessageText) and whose owner left `streamAnswers` on.
 *
 * At the turn's first text a first message is sent at once (what the text is so far), then edited
 * as text comes: one call at a time, no sooner than the chat's pace after the last one (a second
 * for a private Telegram chat; a group's 20 a minute is 3 s), and only when its text changed.
 * Every text shown passes the redactor first, as the final answer does; the chat stream it comes
 * from already holds back a possible secret's start (runs/stream-redaction.ts), so none shows even
 * for a moment. What is shown is the first chunk (split-text.ts) of the text so far.
 *
 * These sends are best effort, outside the outbox: a refused or rate-limited edit is skipped (a
 * 429 only moves the next one back by its retry_after), never retried. The final text is not
 * sent from here: when the turn ends, `finish` says which message to edit and when the chat may
 * take the next call, and the service queues the saved answer in the durable outbox with its
 * first chunk as an edit of that message (outbox/engine.ts). A first message that could not be
 * sent leaves no id, and the answer goes whole, as without streaming.
 */
export type AnswerStream = {
  /** Text the turn streamed (a delta). */
  push(delta: string): void
  /** Stops showing; answers the first message's id (if sent) and ms until the chat's pace. */
  finish(): Promise<StreamedAnswer>
}

export type StreamedAnswer = {
  /** The first message's id; absent when none was sent (the answer then goes whole). */
  messageId?: string
  /** The text it shows now (a final first chunk equal to it needs no edit). */
  shown?: string
  /** How long until the chat's pace lets the next call go. */
  delayMs: number
}

export function startAnswerStream(deps: {
  adapter: ChannelAdapter
  target: ChannelTarget
  redact: (text: string) => string
  log: Pick<Logger, 'info'>
}): AnswerStream {
  const { adapter, target, redact } = deps
  const limits = adapter.limits
  const cap = limits.rollingCap
  // A group's rolling cap, spread evenly, paces its edits too.
  const paceMs = Math.max(
    limits.minIntervalMs,
    cap?.appliesTo(target) ? Math.ceil(cap.windowMs / cap.max) : 0,
  )
  let text = ''
  let shown: string | undefined
  let messageId: string | undefined
  /** The first send failed: nothing more is tried (the answer goes whole). */
  let gaveUp = false
  let finished = false
  let nextAt = 0
  let inFlight: Promise<void> | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  const controller = new AbortController()

  const preview = () => splitForChannel(redact(text), limits.maxChars)[0] ?? ''

  async function send(): Promise<void> {
    const body = preview()
    if (!body.trim() || body === shown) return
    const at = Date.now()
    try {
      if (messageId === undefined) {
        const sent = await adapter.post(
          { ...target, text: body, idempotencyKey: `stream.${at}` },
          controller.signal,
        )
        if (sent.externalId === undefined) gaveUp = true
        messageId = sent.externalId
      } else {
        await adapter.edit!({ ...target, messageId, text: body }, controller.signal)
      }
      shown = body
      nextAt = at + paceMs
    } catch (error) {
      if (messageId === undefined) gaveUp = true
      const waitMs = error instanceof RateLimitedError ? (error.retryAfterMs ?? paceMs) : paceMs
      nextAt = Math.max(nextAt, Date.now() + waitMs)
      deps.log.info('channel stream edit skipped', { error: errorMessage(error) })
    }
  }

  /** Sends now or when the pace allows; one call at a time, the latest text when it goes. */
  function schedule(): void {
    if (finished || gaveUp || inFlight || timer) return
    const waitMs = nextAt - Date.now()
    if (waitMs > 0) {
      timer = setTimeout(() => {
        timer = undefined
        schedule()
      }, waitMs)
      return
    }
    inFlight = send().finally(() => {
      inFlight = undefined
      if (preview() !== shown) schedule()
    })
  }

  return {
    push(delta) {
      if (!delta) return
      text += delta
      schedule()
    },
    async finish() {
      finished = true
      if (timer) clearTimeout(timer)
      timer = undefined
      await inFlight
      controller.abort()
      return {
        ...(messageId !== undefined && !gaveUp && { messageId, shown }),
        delayMs: Math.max(0, nextAt - Date.now()),
      }
    },
  }
}
