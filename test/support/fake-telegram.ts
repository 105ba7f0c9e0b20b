/**
 * A protocol-faithful fake of the Telegram Bot API on loopback, for the channel tests: it serves
 * `POST /bot<token>/<method>` with JSON parameters and answers in the Bot API's envelope
 * (`{ ok, result }` or `{ ok: false, error_code, description, parameters }`), records every call,
 * and lets a test script refusals per method: a 429 with `retry_after`, a 403 "bot was blocked".
 * `getUpdates` hands out the updates a test queued, from the offset asked, as long polling does.
 * Sent messages are kept, so `editMessageText` answers as Telegram does (400 "message is not
 * modified" for the same text, "message to edit not found" for an unknown id).
 */
import { createServer } from 'node:http'
import { closerOf, listenOnLoopback } from './loopback-server.ts'

export type TelegramCall = {
  method: string
  token: string
  params: any
  at: number
  /** The status of a scripted refusal this call got; absent when it was answered. */
  refused?: number
  /** The message_id a sendMessage was answered with. */
  messageId?: number
}
export type TelegramRefusal = {
  status: 429 | 403 | 400 | 500
  retryAfter?: number
  description?: string
}

export type FakeTelegram = {
  /** The apiBaseUrl to configure (no trailing slash). */
  url: string
  calls: TelegramCall[]
  /** Calls of one method, in order. */
  callsOf(method: string): TelegramCall[]
  /** The next calls of `method` are refused with these, in order; then it answers normally. */
  refuse(method: string, ...refusals: TelegramRefusal[]): void
  /** The call of `method` to `chatId` after the next `skip` ones to it is refused once. */
  refuseInChat(method: string, chatId: string, skip: number, refusal: TelegramRefusal): void
  /** A sent message's text as it shows now (after its edits), or undefined. */
  messageText(chatId: string, messageId: number): string | undefined
  /** The texts a chat shows now, its messages in the order they were sent. */
  shownIn(chatId: string): string[]
  /** Queues an update for getUpdates (its update_id is given). */
  queueUpdate(update: Record<string, unknown> & { update_id: number }): void
  close(): Promise<void>
}

export async function startFakeTelegram(options: { token: string }): Promise<FakeTelegram> {
  const calls: TelegramCall[] = []
  const refusals = new Map<string, TelegramRefusal[]>()
  const chatRefusals: { method: string; chatId: string; skip: number; refusal: TelegramRefusal }[] =
    []
  const updates: { update_id: number }[] = []
  const waiters = new Set<() => void>()
  let messageId = 100
  /** Each sent message's current text, by `<chat_id>/<message_id>`. */
  const messages = new Map<string, string>()

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const text = Buffer.concat(chunks).toString('utf8')
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    const match = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '')
    if (!match) return send(404, { ok: false, error_code: 404, description: 'Not Found' })
    const [, token, method] = match as unknown as [string, string, string]
    let params: any = {}
    try {
      params = text ? JSON.parse(text) : {}
    } catch {
      return send(400, { ok: false, error_code: 400, description: 'Bad Request: invalid JSON' })
    }
    const call: TelegramCall = { method, token, params, at: Date.now() }
    calls.push(call)
    if (token !== options.token) {
      return send(401, { ok: false, error_code: 401, description: 'Unauthorized' })
    }
    const inChat = chatRefusals.find(
      (r) => r.method === method && r.chatId === String(params.chat_id),
    )
    let refusal: TelegramRefusal | undefined
    if (inChat && inChat.skip-- === 0) {
      chatRefusals.splice(chatRefusals.indexOf(inChat), 1)
      refusal = inChat.refusal
    }
    refusal ??= refusals.get(method)?.shift()
    if (refusal) {
      call.refused = refusal.status
      return send(refusal.status, {
        ok: false,
        error_code: refusal.status,
        description:
          refusal.description ??
          (refusal.status === 429
            ? `Too Many Requests: retry after ${refusal.retryAfter ?? 1}`
            : refusal.status === 403
              ? 'Forbidden: bot was blocked by the user'
              : 'Bad Request'),
        ...(refusal.retryAfter !== undefined && {
          parameters: { retry_after: refusal.retryAfter },
        }),
      })
    }
    switch (method) {
      case 'getMe':
        return send(200, { ok: true, result: { id: 1, is_bot: true, username: 'popagent_bot' } })
      case 'sendMessage':
        if (
          typeof params.text !== 'string' ||
          params.text.length === 0 ||
          params.text.length > 4096
        ) {
          return send(400, {
            ok: false,
            error_code: 400,
            description: 'Bad Request: message is too long',
          })
        }
        messages.set(`${params.chat_id}/${++messageId}`, params.text)
        call.messageId = messageId
        return send(200, {
          ok: true,
          result: {
            message_id: messageId,
            chat: { id: Number(params.chat_id) },
            text: params.text,
          },
        })
      case 'editMessageText': {
        // As the Bot API answers: the edited message, or 400 for a message it does not know,
        // for text over the limit, and for text equal to the message's own.
        const key = `${params.chat_id}/${params.message_id}`
        const bad = (description: string) =>
          send(400, { ok: false, error_code: 400, description: `Bad Request: ${description}` })
        if (!messages.has(key)) return bad('message to edit not found')
        if (typeof params.text !== 'string' || params.text.length === 0) {
          return bad('message text is empty')
        }
        if (params.text.length > 4096) return bad('MESSAGE_TOO_LONG')
        if (messages.get(key) === params.text) {
          return bad(
            'message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
          )
        }
        messages.set(key, params.text)
        return send(200, {
          ok: true,
          result: {
            message_id: Number(params.message_id),
            chat: { id: Number(params.chat_id) },
            text: params.text,
          },
        })
      }
      case 'getUpdates': {
        // Long polling: answered as soon as an update is there, else after `timeout` (capped
        // at a second here, so a test's host stops quickly).
        const offset = Number(params.offset ?? 0)
        const pending = () => updates.filter((u) => u.update_id >= offset)
        if (pending().length === 0) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(done, Math.min(Number(params.timeout ?? 0) * 1000, 1_000))
            function done() {
              clearTimeout(timer)
              waiters.delete(done)
              resolve()
            }
            waiters.add(done)
          })
        }
        return send(200, { ok: true, result: pending() })
      }
      case 'setWebhook':
      case 'sendChatAction':
      case 'answerCallbackQuery':
        return send(200, { ok: true, result: true })
      default:
        return send(404, { ok: false, error_code: 404, description: 'Not Found: method not found' })
    }
  })
  const close = closerOf(server)
  const port = await listenOnLoopback(server)
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    callsOf: (method) => calls.filter((c) => c.method === method),
    messageText: (chatId, id) => messages.get(`${chatId}/${id}`),
    shownIn: (chatId) =>
      [...messages.entries()].filter(([key]) => key.startsWith(`${chatId}/`)).map(([, t]) => t),
    refuse(method, ...list) {
      refusals.set(method, [...(refusals.get(method) ?? []), ...list])
    },
    refuseInChat: (method, chatId, skip, refusal) =>
      void chatRefusals.push({ method, chatId, skip, refusal }),
    queueUpdate(update) {
      updates.push(update)
      for (const wake of [...waiters]) wake()
    },
    close,
  }
}
