/**
 * The channel room's shared types (compute-host/channels/): what an adapter is, what it reads
 * from an inbound request and what it sends. The service (service.ts) owns everything channels
 * share; an adapter knows one service's protocol and nothing else, so adding a channel is one
 * adapter file and its line in adapters/index.ts.
 */

/** An inbound request as the edge received it: headers lower-cased, the body's exact bytes. */
export type InboundRequest = {
  headers: Record<string, string>
  body: Uint8Array
  /** Milliseconds since the epoch, for timestamp windows (a test moves it). */
  now: number
}

/** Where a message goes: a conversation (a chat, a channel) and a thread in it ('' for none). */
export type ChannelTarget = { conversation: string; thread: string }

/** One button under a message; `data` comes back in a `button` event (≤ 64 bytes for Telegram). */
export type ChannelButton = { text: string; data: string }

export type InboundEvent =
  | (ChannelTarget & {
      type: 'message'
      /** The service's id of this delivery: the same on a redelivery, so it dedupes. */
      externalId: string
      sender: string
      text: string
    })
  | (ChannelTarget & {
      type: 'button'
      externalId: string
      sender: string
      data: string
      /** What the adapter needs to acknowledge the press (Telegram's callback query id). */
      ackId?: string
    })
  /** A service's URL check (Slack's url_verification), answered with `challenge`. */
  | { type: 'challenge'; challenge: string }
  /** An update the channel does not act on (an edit, a join); recorded once, then ignored. */
  | { type: 'ignored'; externalId: string; reason: string }

export type ChannelLimits = {
  /** The longest message the service takes, in UTF-16 code units. */
  maxChars: number
  /** The least time between two messages to one chat. */
  minIntervalMs: number
  /**
   * A cap per rolling window for the chats it applies to (Telegram: 20 a minute to a group), on
   * top of `minIntervalMs`; the outbox holds that chat's next chunk until the window has room.
   */
  rollingCap?: { max: number; windowMs: number; appliesTo(target: ChannelTarget): boolean }
}

export type OutboundMessage = ChannelTarget & {
  text: string
  buttons?: ChannelButton[]
  /** Stable per chunk (the outbox row's id): a receiver that dedupes sees a resend as one. */
  idempotencyKey: string
}

export type SendResult = { externalId?: string }

export type EditedMessage = ChannelTarget & { messageId: string; text: string }

/** The service asked to wait (HTTP 429): the chunk is sent again after `retryAfterMs`. */
export class RateLimitedError extends Error {
  override name = 'RateLimitedError'
  readonly retryAfterMs: number | undefined
  constructor(message: string, retryAfterMs: number | undefined) {
    super(message)
    this.retryAfterMs = retryAfterMs
  }
}

/** A failure that may pass (5xx, a dropped connection): retried with backoff. */
export class TransientSendError extends Error {
  override name = 'TransientSendError'
  readonly retryAfterMs: number | undefined
  constructor(message: string, retryAfterMs?: number) {
    super(message)
    this.retryAfterMs = retryAfterMs
  }
}

/**
 * A refusal that sending again will not change (other 4xx). `blocked`: the recipient refused
 * the bot (Telegram's 403), so its binding is blocked and its queued chunks cancelled.
 */
export class PermanentSendError extends Error {
  override name = 'PermanentSendError'
  readonly blocked: boolean
  constructor(message: string, blocked = false) {
    super(message)
    this.blocked = blocked
  }
}

export type VerifyResult = { ok: true } | { ok: false; reason: string }

export type ChannelAdapter = {
  readonly limits: ChannelLimits
  /** Nowhere to send (a webhook channel without a callback URL): answers are not queued. */
  readonly listensOnly?: boolean
  /** Checks the request came from the service, on its raw bytes, before anything parses them. */
  verify(request: InboundRequest): VerifyResult
  /** The events of a verified request (one for most services; none for a ping). */
  parse(request: InboundRequest): InboundEvent[]
  post(message: OutboundMessage, signal: AbortSignal): Promise<SendResult>
  /**
   * Replaces the text of a message this adapter sent (`messageId`: its post's `externalId`).
   * Text equal to the message's own is success: an edit sent twice shows once.
   */
  edit?(message: EditedMessage, signal: AbortSignal): Promise<void>
  /** The owner's setting: answers are streamed by editing their first message (`edit`). */
  readonly streamAnswers?: boolean
  /** Shows "typing…" in a conversation, where the service has it. */
  typing?(target: ChannelTarget, signal: AbortSignal): Promise<void>
  /** Acknowledges a button press, where the service expects it, showing `text` where it can. */
  ackButton?(ackId: string, signal: AbortSignal, text?: string): Promise<void>
  /** Long polling: the events after `offset`, and the offset to ask from next time. */
  poll?(offset: number, signal: AbortSignal): Promise<{ events: InboundEvent[]; next: number }>
  /** Registers the channel's inbound URL with the service (Telegram's setWebhook). */
  setup?(inboundUrl: string, signal: AbortSignal): Promise<void>
}
