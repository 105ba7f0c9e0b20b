import { z } from 'zod'
import { idSchema, WorkspaceId } from '../ids.ts'
import { Line, ModelId, StorableText, Title } from './fields.ts'
import { SecretValue } from './secrets.ts'

/**
 * Chat channels (X6) as the API shows and takes them. Secrets (signing secrets, bot tokens) go
 * in with a create or an update and never come out: a channel is shown with how many values
 * each of its secret roles holds, never with one.
 */
export const CHANNEL_KINDS = ['webhook', 'telegram', 'slack'] as const
export const ChannelKind = z.enum(CHANNEL_KINDS)
export type ChannelKind = z.infer<typeof ChannelKind>

export const ChannelId = idSchema('channel')
export const ChannelBindingId = idSchema('channelBinding')

/** The edge's bound on an inbound event's body, before anything reads it. */
export const MAX_INBOUND_BYTES = 1_048_576

const HttpUrl = z.url({ protocol: /^https?$/, error: 'an http or https URL' }).max(2_000)

/** Sender ids as each service names them (a Telegram user id, a Slack user id, any string). */
const SenderId = Line(200)
const AllowedSenders = z.array(SenderId).max(1_000)

/**
 * `allowLoopback`: the owner's consent to call a loopback address (a bridge on this machine, a
 * test's fake service); private addresses only for a webhook's callback with its
 * `allowPrivateCallback`, link-local ones never (compute-host/net/outbound-guard.ts).
 */
const Common = {
  name: Title,
  workspaceId: WorkspaceId.optional(),
  model: ModelId.optional(),
  enabled: z.boolean().optional(),
  allowedSenders: AllowedSenders,
}

export const WebhookSettings = z.strictObject({
  /** Where answers are POSTed, signed with the outbound secret; none: the channel only listens. */
  callbackUrl: HttpUrl.optional(),
  allowLoopback: z.boolean().default(false),
  /**
   * The owner's consent to a callback on a private network (10/8, 172.16/12, 192.168/16,
   * fc00::/7): a receiver on the owner's LAN. Link-local (169.254/16, fe80::/10, where cloud
   * metadata answers) and the other special blocks are refused even so.
   */
  allowPrivateCallback: z.boolean().optional(),
})
export const WebhookSecrets = z.strictObject({
  /** Inbound signatures are accepted under any of these (rotation: add the new, then drop the old). */
  signing: z.array(SecretValue).min(1).max(4),
  outbound: SecretValue,
})

export const TelegramSettings = z.strictObject({
  apiBaseUrl: HttpUrl.default('https://api.telegram.org'),
  /** `webhook`: Telegram posts updates to /api/channels/:id/inbound; `polling`: getUpdates. */
  mode: z.enum(['webhook', 'polling']).default('webhook'),
  allowLoopback: z.boolean().default(false),
  /**
   * An answer shows while it is written: its first message is sent at the first text and edited
   * as text comes (editMessageText); the final text still goes through the durable outbox.
   */
  streamAnswers: z.boolean().default(true),
})
export const TelegramSecrets = z.strictObject({
  botToken: SecretValue,
  /** The X-Telegram-Bot-Api-Secret-Token every webhook update must carry (webhook mode). */
  webhookSecret: SecretValue.optional(),
})

export const SlackSettings = z.strictObject({
  apiBaseUrl: HttpUrl.default('https://slack.com/api'),
  allowLoopback: z.boolean().default(false),
  /** As Telegram's, by `chat.update`; off by default (its limit, ~50 a minute, is per workspace). */
  streamAnswers: z.boolean().default(false),
})
export const SlackSecrets = z.strictObject({ botToken: SecretValue, signingSecret: SecretValue })

export const CreateChannelInput = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('webhook'),
    ...Common,
    settings: WebhookSettings,
    secrets: WebhookSecrets,
  }),
  z
    .strictObject({
      kind: z.literal('telegram'),
      ...Common,
      settings: TelegramSettings,
      secrets: TelegramSecrets,
    })
    .refine((c) => c.settings.mode === 'polling' || c.secrets.webhookSecret !== undefined, {
      message: 'a Telegram webhook needs secrets.webhookSecret: updates without it are refused',
      path: ['secrets', 'webhookSecret'],
    }),
  z.strictObject({
    kind: z.literal('slack'),
    ...Common,
    settings: SlackSettings,
    secrets: SlackSecrets,
  }),
])
export type CreateChannelInput = z.infer<typeof CreateChannelInput>

/**
 * A change: the fields given replace the stored ones. `settings` is merged over the stored
 * settings and checked against the channel's kind; each secret role given replaces that role's
 * values (the vault keeps none of the old ones).
 */
export const UpdateChannelInput = z.strictObject({
  name: Title.optional(),
  enabled: z.boolean().optional(),
  model: ModelId.nullable().optional(),
  allowedSenders: AllowedSenders.optional(),
  settings: z.record(z.string(), z.unknown()).optional(),
  secrets: z
    .record(z.string(), z.union([SecretValue, z.array(SecretValue).min(1).max(4)]))
    .optional(),
})
export type UpdateChannelInput = z.infer<typeof UpdateChannelInput>

export const ChannelView = z.object({
  id: z.string(),
  kind: ChannelKind,
  name: z.string(),
  enabled: z.boolean(),
  workspaceId: z.string(),
  model: z.string().nullable(),
  settings: z.record(z.string(), z.unknown()),
  allowedSenders: z.array(z.string()),
  /** Each secret role and how many values it holds; the values themselves are never shown. */
  secrets: z.record(z.string(), z.number()),
  /** The path a service posts events to (authenticated by its signature, not the API key). */
  inboundPath: z.string(),
  state: z.enum(['ok', 'error']),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type ChannelView = z.infer<typeof ChannelView>

export const ChannelParams = z.strictObject({ id: ChannelId })
export const ChannelBindingParams = z.strictObject({ id: ChannelId, bindingId: ChannelBindingId })
/** The inbound route's id is read loosely: an unknown or malformed one is the same 401. */
// Any storable text, not the channel id's shape: an unknown id gets the same 401 as a bad proof.
export const InboundParams = z.strictObject({ id: StorableText(100) })

export const ChannelHistoryQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(100),
})

export const ChannelEventView = z.object({
  id: z.string(),
  externalId: z.string(),
  bindingId: z.string().nullable(),
  sender: z.string().nullable(),
  kind: z.string(),
  summary: z.record(z.string(), z.unknown()),
  state: z.string(),
  detail: z.string().nullable(),
  createdAt: z.string(),
})
export const OutboxRowView = z.object({
  id: z.number(),
  bindingId: z.string().nullable(),
  deliveryId: z.string(),
  seq: z.number(),
  total: z.number(),
  chars: z.number(),
  state: z.string(),
  attempts: z.number(),
  nextAttemptAt: z.string(),
  lastError: z.string().nullable(),
  sentAt: z.string().nullable(),
})
export const BindingView = z.object({
  id: z.string(),
  conversation: z.string(),
  thread: z.string(),
  sessionId: z.string().nullable(),
  blockedAt: z.string().nullable(),
  updatedAt: z.string(),
})

/** The owner posts a message to a conversation of a channel (through the outbox). */
export const ChannelPostInput = z.strictObject({
  conversation: Line(200),
  thread: Line(200).optional(),
  text: z.string().min(1).max(100_000),
})
/** Registers the channel with its service: the public base URL it will post events to. */
export const ChannelSetupInput = z.strictObject({ publicBaseUrl: HttpUrl })
export const ChannelPosted = z.object({ deliveryId: z.string(), chunks: z.number() })
export const ChannelCancelled = z.object({ stopped: z.boolean(), cancelled: z.number() })

/** What an inbound event came to: its id, whether it was a redelivery, and a URL challenge. */
export const InboundAccepted = z.object({
  /** False: not verified (a bad signature, an unknown channel); the edge answers 401. */
  verified: z.boolean(),
  eventId: z.string().nullable(),
  duplicate: z.boolean(),
  /** Slack's url_verification: the edge answers it as Slack expects. */
  challenge: z.string().optional(),
})
export type InboundAccepted = z.infer<typeof InboundAccepted>

/** A channel as health reports it. */
export type ChannelHealth = {
  id: string
  kind: ChannelKind
  name: string
  enabled: boolean
  state: 'ok' | 'error'
  lastError: string | null
}
