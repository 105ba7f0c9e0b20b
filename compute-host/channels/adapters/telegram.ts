import { secretsEqual } from '../../../runtime/constant-time.ts'
import { channelFetch, judgeSend } from '../http.ts'
import { PermanentSendError, type ChannelAdapter, type InboundEvent } from '../types.ts'

/**
 * Telegram through the Bot API (`<apiBaseUrl>/bot<token>/<method>`, configurable so tests run a
 * fake on loopback). Updates arrive by webhook, each carrying the secret token Telegram was
 * given at setWebhook in `X-Telegram-Bot-Api-Secret-Token` (compared in constant time; no
 * webhook is set up or accepted without one), or by long polling (getUpdates). `update_id` is
 * the event id. Messages are sent as plain text, at most 4,096 characters, at least a second
 * apart per chat; a 429's `parameters.retry_after` is honoured; a 403 (the user blocked the bot,
 * or it left the group) blocks the binding. An answer may stream (`streamAnswers`): its first
 * message is edited with editMessageText as text comes (answer-stream.ts).
 */
type Update = {
  update_id: number
  message?: {
    message_id: number
    message_thread_id?: number
    from?: { id: number; is_bot?: boolean }
    chat: { id: number }
    text?: string
  }
  callback_query?: {
    id: string
    from: { id: number }
    data?: string
    message?: { chat: { id: number }; message_thread_id?: number }
  }
}

type ApiAnswer = {
  ok: boolean
  result?: unknown
  error_code?: number
  description?: string
  parameters?: { retry_after?: number }
}

const POLL_TIMEOUT_S = 10

export function createTelegramAdapter(config: {
  settings: {
    apiBaseUrl: string
    allowLoopback: boolean
    mode: 'webhook' | 'polling'
    streamAnswers?: boolean
  }
  secrets: { botToken: string[]; webhookSecret?: string[] }
}): ChannelAdapter {
  const policy = { allowLoopback: config.settings.allowLoopback }
  const token = config.secrets.botToken[0]!
  const webhookSecret = config.secrets.webhookSecret?.[0]
  const base = config.settings.apiBaseUrl.replace(/\/+$/, '')

  /** One Bot API call; a refusal becomes the outbox's error classes, with Telegram's reason. */
  async function call(method: string, params: object, signal: AbortSignal): Promise<unknown> {
    const response = await channelFetch(
      `${base}/bot${token}/${method}`,
      { headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) },
      policy,
      signal,
    )
    let answer: ApiAnswer | undefined
    try {
      answer = JSON.parse(response.text) as ApiAnswer
    } catch {
      answer = undefined
    }
    const what = `Telegram ${method}${answer?.description ? ` (${answer.description})` : ''}`
    if (response.status === 403) throw new PermanentSendError(`${what}: HTTP 403`, true)
    const retryAfter = answer?.parameters?.retry_after
    judgeSend(response, what, retryAfter === undefined ? undefined : retryAfter * 1000)
    if (!answer?.ok) throw new PermanentSendError(`${what}: not ok`)
    return answer.result
  }

  const toEvent = (update: Update): InboundEvent => {
    const externalId = `update:${update.update_id}`
    const message = update.message
    if (message?.text && message.from && !message.from.is_bot) {
      return {
        type: 'message',
        externalId,
        sender: String(message.from.id),
        conversation: String(message.chat.id),
        thread: message.message_thread_id ? String(message.message_thread_id) : '',
        text: message.text,
      }
    }
    const query = update.callback_query
    if (query?.data && query.message) {
      return {
        type: 'button',
        externalId,
        sender: String(query.from.id),
        conversation: String(query.message.chat.id),
        thread: query.message.message_thread_id ? String(query.message.message_thread_id) : '',
        data: query.data,
        ackId: query.id,
      }
    }
    return { type: 'ignored', externalId, reason: 'not a text message or a button press' }
  }

  return {
    limits: {
      maxChars: 4_096,
      minIntervalMs: 1_000,
      // Telegram's limit for a group: 20 messages a minute. Groups, supergroups and channels
      // are the chats with negative ids; a private chat has only the per-chat second.
      rollingCap: {
        max: 20,
        windowMs: 60_000,
        appliesTo: (target) => target.conversation.startsWith('-'),
      },
    },
    verify(request) {
      if (!webhookSecret) return { ok: false, reason: 'no webhook secret is set' }
      const given = request.headers['x-telegram-bot-api-secret-token'] ?? ''
      return secretsEqual(given, webhookSecret)
        ? { ok: true }
        : { ok: false, reason: 'wrong secret token' }
    },
    parse(request) {
      let update: Update
      try {
        update = JSON.parse(new TextDecoder().decode(request.body)) as Update
      } catch {
        return []
      }
      if (typeof update?.update_id !== 'number') return []
      return [toEvent(update)]
    },
    async post(message, signal) {
      const result = (await call(
        'sendMessage',
        {
          chat_id: message.conversation,
          text: message.text,
          ...(message.thread && { message_thread_id: Number(message.thread) }),
          ...(message.buttons && {
            reply_markup: {
              inline_keyboard: [
                message.buttons.map((b) => ({ text: b.text, callback_data: b.data })),
              ],
            },
          }),
        },
        signal,
      )) as { message_id?: number } | undefined
      return result?.message_id === undefined ? {} : { externalId: String(result.message_id) }
    },
    streamAnswers: config.settings.streamAnswers,
    async edit(message, signal) {
      try {
        await call(
          'editMessageText',
          {
            chat_id: message.conversation,
            message_id: Number(message.messageId),
            text: message.text,
          },
          signal,
        )
      } catch (error) {
        // The message shows this text already (an edit sent again after a lost answer).
        if (error instanceof PermanentSendError && /message is not modified/i.test(error.message)) {
          return
        }
        throw error
      }
    },
    async typing(target, signal) {
      await call(
        'sendChatAction',
        {
          chat_id: target.conversation,
          action: 'typing',
          ...(target.thread && { message_thread_id: Number(target.thread) }),
        },
        signal,
      )
    },
    async ackButton(ackId, signal, text) {
      await call(
        'answerCallbackQuery',
        { callback_query_id: ackId, ...(text && { text: text.slice(0, 200) }) },
        signal,
      )
    },
    async poll(offset, signal) {
      const updates = (await call(
        'getUpdates',
        { offset, timeout: POLL_TIMEOUT_S, allowed_updates: ['message', 'callback_query'] },
        signal,
      )) as Update[]
      const next = updates.reduce((n, u) => Math.max(n, u.update_id + 1), offset)
      return { events: updates.map(toEvent), next }
    },
    async setup(inboundUrl, signal) {
      if (!webhookSecret) {
        throw new PermanentSendError('refusing to set a Telegram webhook without a secret token')
      }
      await call(
        'setWebhook',
        {
          url: inboundUrl,
          secret_token: webhookSecret,
          allowed_updates: ['message', 'callback_query'],
        },
        signal,
      )
    },
  }
}
