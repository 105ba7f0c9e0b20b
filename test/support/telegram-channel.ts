import type { Client } from './typed-client.ts'
import { okJson } from './typed-client.ts'

/**
 * A Telegram channel on the loopback fake (fake-telegram.ts), made through the owner's API as a
 * person would: the fake's URL as the Bot API base, loopback allowed for it, one allowed sender.
 * Webhook mode needs the secret-token header's value; polling reads the fake's updates instead.
 */
export async function addTelegramChannel(
  api: Client['api'],
  options: {
    telegramUrl: string
    name: string
    botToken: string
    /** Webhook mode when given; polling without. */
    webhookSecret?: string
    model?: string
    allowedSenders?: string[]
    /** Telegram's default is on: the first text is sent and then edited as the answer grows. */
    streamAnswers?: boolean
  },
) {
  return okJson(
    await api.channels.$post({
      json: {
        kind: 'telegram',
        name: options.name,
        ...(options.model && { model: options.model }),
        allowedSenders: options.allowedSenders ?? ['42'],
        settings: {
          apiBaseUrl: options.telegramUrl,
          mode: options.webhookSecret ? 'webhook' : 'polling',
          allowLoopback: true,
          ...(options.streamAnswers !== undefined && { streamAnswers: options.streamAnswers }),
        },
        secrets: {
          botToken: options.botToken,
          ...(options.webhookSecret && { webhookSecret: options.webhookSecret }),
        },
      },
    }),
    201,
  )
}
