import { z } from 'zod'
import { channelFetch, judgeSend } from '../http.ts'
import { signWebhook, verifyWebhook } from '../signature.ts'
import {
  PermanentSendError,
  type ChannelAdapter,
  type InboundEvent,
  type InboundRequest,
} from '../types.ts'

/**
 * The signed webhook channel: for automations and any bridge. Inbound, a POST whose
 * `webhook-signature` is checked against the channel's signing secrets before the body is read
 * as JSON (signature.ts); its `webhook-id` is the event's id, so a redelivery dedupes. Outbound,
 * each chunk is POSTed to the owner's callback URL, signed the same way with the outbound
 * secret, `webhook-id` being the chunk's outbox id (stable across retries).
 *
 * Inbound body: `{ "conversation", "thread"?, "sender", "text" }`, or a button press
 * `{ "type": "button", "conversation", "thread"?, "sender", "data" }`.
 * Outbound body: `{ "type": "message", "conversation", "thread", "text", "buttons"? }`.
 */
const Inbound = z.union([
  z.object({
    type: z.literal('message').default('message'),
    conversation: z.string().min(1).max(200),
    thread: z.string().max(200).default(''),
    sender: z.string().min(1).max(200),
    text: z.string().min(1).max(100_000),
  }),
  z.object({
    type: z.literal('button'),
    conversation: z.string().min(1).max(200),
    thread: z.string().max(200).default(''),
    sender: z.string().min(1).max(200),
    data: z.string().min(1).max(64),
  }),
])

export function createWebhookAdapter(config: {
  settings: { callbackUrl?: string; allowLoopback: boolean; allowPrivateCallback?: boolean }
  secrets: { signing: string[]; outbound: string[] }
}): ChannelAdapter {
  const policy = {
    allowLoopback: config.settings.allowLoopback,
    allowPrivate: config.settings.allowPrivateCallback ?? false,
  }
  return {
    limits: { maxChars: 16_000, minIntervalMs: 0 },
    listensOnly: !config.settings.callbackUrl,
    verify: (request: InboundRequest) =>
      verifyWebhook(config.secrets.signing, request.headers, request.body, request.now),
    parse(request): InboundEvent[] {
      const externalId = request.headers['webhook-id']!
      let json: unknown
      try {
        json = JSON.parse(new TextDecoder().decode(request.body))
      } catch {
        return [{ type: 'ignored', externalId, reason: 'the body is not JSON' }]
      }
      const parsed = Inbound.safeParse(json)
      if (!parsed.success) return [{ type: 'ignored', externalId, reason: 'unknown event shape' }]
      return [{ ...parsed.data, externalId }]
    },
    async post(message, signal) {
      const url = config.settings.callbackUrl
      // Not queued for such a channel (listensOnly); refused should a row be there anyway.
      if (!url) throw new PermanentSendError('the channel has no callback URL')
      const body = JSON.stringify({
        type: 'message',
        conversation: message.conversation,
        thread: message.thread,
        text: message.text,
        ...(message.buttons && { buttons: message.buttons }),
      })
      const timestamp = Math.floor(Date.now() / 1000)
      const id = message.idempotencyKey
      const secret = config.secrets.outbound[0]!
      const response = await channelFetch(
        url,
        {
          headers: {
            'content-type': 'application/json',
            'webhook-id': id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': signWebhook(secret, id, timestamp, new TextEncoder().encode(body)),
          },
          body,
        },
        policy,
        signal,
      )
      judgeSend(response, 'the callback URL')
      return {}
    },
  }
}
