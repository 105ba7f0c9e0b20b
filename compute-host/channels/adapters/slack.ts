import { createHmac } from 'node:crypto'
import { secretsEqual } from '../../../runtime/constant-time.ts'
import { channelFetch, judgeSend, type ChannelResponse } from '../http.ts'
import { TIMESTAMP_WINDOW_S } from '../signature.ts'
import { PermanentSendError, type ChannelAdapter, type InboundEvent } from '../types.ts'

/**
 * Slack through the Events API (inbound) and the Web API (outbound), `apiBaseUrl` configurable
 * so tests run a fake on loopback. Every request is checked against the signing secret before it
 * is parsed: `X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:<timestamp>:<body>">` with
 * `X-Slack-Request-Timestamp` within five minutes, compared in constant time. The URL check
 * (`url_verification`) is answered with its challenge. Slack's retries (`X-Slack-Retry-Num`)
 * carry the same `event_id`, which is the event's id, so a retry dedupes.
 *
 * A message in a channel is bound by its thread (`thread_ts`, or its own `ts` for a top-level
 * message, whose answer then starts that thread); a direct message by the conversation alone.
 * Messages from bots (this one included) and edits are ignored, so the bot never answers itself.
 * Answers go by `chat.postMessage`, at most 4,000 characters, a second apart per conversation;
 * a 429's Retry-After is honoured; `not_in_channel`, `channel_not_found`, `is_archived` block.
 * With `streamAnswers` (off by default) an answer's first message is edited by `chat.update` as
 * it is written (answer-stream.ts).
 *
 * Buttons (an approval's Allow and Deny) go as Block Kit: a section with the text and an actions
 * block, each button's `value` its data. A press comes back to the same request URL (the app's
 * Interactivity URL set to it) as a form field `payload` holding a `block_actions` JSON, signed
 * like every request; its conversation and thread are those of the message the buttons were on.
 * Slack takes the request's 2xx answer as the acknowledgement and shows no text for it.
 */
type SlackEvent = {
  type?: string
  subtype?: string
  bot_id?: string
  user?: string
  text?: string
  channel?: string
  channel_type?: string
  ts?: string
  thread_ts?: string
}
/** An interactivity request's `payload` when a button was pressed (the fields read here). */
type BlockActions = {
  type?: string
  user?: { id?: string }
  channel?: { id?: string }
  container?: { channel_id?: string; thread_ts?: string; message_ts?: string }
  message?: { ts?: string; thread_ts?: string }
  actions?: { value?: string; action_ts?: string }[]
}
/** Section text is at most 3,000 characters in Block Kit; the message's `text` keeps it all. */
const SECTION_CHARS = 3_000

/** A verified interactivity request's button press, or undefined when it is none. */
function buttonPress(body: string): InboundEvent | undefined {
  const raw = new URLSearchParams(body).get('payload')
  if (!raw) return undefined
  let payload: BlockActions
  try {
    payload = JSON.parse(raw) as BlockActions
  } catch {
    return undefined
  }
  const action = payload.actions?.[0]
  const conversation = payload.channel?.id ?? payload.container?.channel_id
  const sender = payload.user?.id
  if (payload.type !== 'block_actions' || !action?.value || !conversation || !sender) {
    return undefined
  }
  return {
    type: 'button',
    // Slack does not resend a press; its action_ts (and who pressed) names it.
    externalId: `action:${action.action_ts ?? ''}:${sender}:${action.value}`,
    sender,
    conversation,
    thread: payload.message?.thread_ts ?? payload.container?.thread_ts ?? '',
    data: action.value.slice(0, 64),
  }
}

type SlackBody = {
  type?: string
  challenge?: string
  event_id?: string
  event?: SlackEvent
}

const BLOCKING_ERRORS = new Set([
  'not_in_channel',
  'channel_not_found',
  'is_archived',
  'account_inactive',
])

export function createSlackAdapter(config: {
  settings: { apiBaseUrl: string; allowLoopback: boolean; streamAnswers?: boolean }
  secrets: { botToken: string[]; signingSecret: string[] }
}): ChannelAdapter {
  const policy = { allowLoopback: config.settings.allowLoopback }
  const base = config.settings.apiBaseUrl.replace(/\/+$/, '')
  const token = config.secrets.botToken[0]!
  /** A Web API answer: HTTP refusals as the outbox's classes, then Slack's own `ok: false`. */
  function judged(response: ChannelResponse, method: string): { ts?: string } {
    judgeSend(response, `Slack ${method}`)
    let answer: { ok?: boolean; error?: string; ts?: string } = {}
    try {
      answer = JSON.parse(response.text) as typeof answer
    } catch {
      throw new PermanentSendError(`Slack ${method}: the answer is not JSON`)
    }
    if (!answer.ok) {
      const error = answer.error ?? 'unknown_error'
      throw new PermanentSendError(`Slack ${method}: ${error}`, BLOCKING_ERRORS.has(error))
    }
    return answer
  }
  /** One Web API method with a JSON body and the bot token, judged (as Telegram's `call`). */
  async function call(method: string, body: object, signal: AbortSignal) {
    const response = await channelFetch(
      `${base}/${method}`,
      {
        headers: {
          'content-type': 'application/json; charset=utf-8',
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify(body),
      },
      policy,
      signal,
    )
    return judged(response, method)
  }

  return {
    limits: { maxChars: 4_000, minIntervalMs: 1_000 },
    verify(request) {
      const timestamp = request.headers['x-slack-request-timestamp'] ?? ''
      const given = request.headers['x-slack-signature'] ?? ''
      if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'missing timestamp' }
      if (Math.abs(request.now / 1000 - Number(timestamp)) > TIMESTAMP_WINDOW_S) {
        return { ok: false, reason: 'timestamp outside the window' }
      }
      let matched = false
      for (const secret of config.secrets.signingSecret) {
        const mac = createHmac('sha256', secret)
        mac.update(`v0:${timestamp}:`)
        mac.update(request.body)
        if (secretsEqual(given, `v0=${mac.digest('hex')}`)) matched = true
      }
      return matched ? { ok: true } : { ok: false, reason: 'no signature matches' }
    },
    parse(request): InboundEvent[] {
      const text = new TextDecoder().decode(request.body)
      if (text.startsWith('payload=')) {
        const press = buttonPress(text)
        return press ? [press] : []
      }
      let body: SlackBody
      try {
        body = JSON.parse(text) as SlackBody
      } catch {
        return []
      }
      if (body.type === 'url_verification' && typeof body.challenge === 'string') {
        return [{ type: 'challenge', challenge: body.challenge }]
      }
      const externalId = body.event_id
      const event = body.event
      if (body.type !== 'event_callback' || !externalId || !event) return []
      const fromPerson =
        (event.type === 'message' || event.type === 'app_mention') &&
        !event.bot_id &&
        !event.subtype &&
        event.user &&
        event.channel &&
        typeof event.text === 'string'
      if (!fromPerson) return [{ type: 'ignored', externalId, reason: 'not a person’s message' }]
      const direct = event.channel_type === 'im'
      return [
        {
          type: 'message',
          externalId,
          sender: event.user!,
          conversation: event.channel!,
          thread: direct ? (event.thread_ts ?? '') : (event.thread_ts ?? event.ts ?? ''),
          text: event.text!,
        },
      ]
    },
    streamAnswers: config.settings.streamAnswers,
    async edit(message, signal) {
      await call(
        'chat.update',
        { channel: message.conversation, ts: message.messageId, text: message.text },
        signal,
      )
    },
    async post(message, signal) {
      const answer = await call(
        'chat.postMessage',
        {
          channel: message.conversation,
          text: message.text,
          ...(message.thread && { thread_ts: message.thread }),
          ...(message.buttons && {
            blocks: [
              {
                type: 'section',
                text: { type: 'mrkdwn', text: message.text.slice(0, SECTION_CHARS) },
              },
              {
                type: 'actions',
                elements: message.buttons.map((b) => ({
                  type: 'button',
                  text: { type: 'plain_text', text: b.text },
                  value: b.data,
                  action_id: b.data,
                })),
              },
            ],
          }),
        },
        signal,
      )
      return answer.ts ? { externalId: answer.ts } : {}
    },
  }
}
