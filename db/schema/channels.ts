import { sql } from '../drizzle-orm.ts'
import {
  bigserial,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from '../drizzle-pg-core.ts'
import { timestamps } from './_columns.ts'
import { sessions } from './sessions.ts'
import { workspaces } from './workspaces.ts'

/**
 * Chat channels (X6): a signed webhook, Telegram, Slack. A row holds what is not secret (the
 * callback URL, the API base URL, the owner's allowlist of senders); every secret (signing
 * secrets, bot tokens) lives in the vault and `secret_ids` only names them, so no read of this
 * table can show one. `state` is what health reports: `ok`, or `error` with `last_error`.
 */
export const channels = pgTable(
  'popagent_channels',
  {
    id: text().primaryKey(),
    kind: text().$type<'webhook' | 'telegram' | 'slack'>().notNull(),
    name: text().notNull(),
    enabled: boolean().notNull(),
    workspaceId: text()
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    model: text(),
    /** The kind's settings that are not secret (runtime/contracts/channels.ts). */
    settings: jsonb().$type<Record<string, unknown>>().notNull(),
    /** Sender ids the owner allows; anyone else is refused before any model is asked. */
    allowedSenders: jsonb().$type<string[]>().notNull(),
    /** Role → vault secret ids (a list where rotation keeps several, e.g. signing secrets). */
    secretIds: jsonb().$type<Record<string, string[]>>().notNull(),
    state: text().$type<'ok' | 'error'>().notNull(),
    lastError: text(),
    /** Telegram long polling: the next `offset` for getUpdates. */
    pollOffset: integer(),
    ...timestamps,
  },
  (t) => [
    check('popagent_channels_kind', sql`${t.kind} in ('webhook', 'telegram', 'slack')`),
    check('popagent_channels_state', sql`${t.state} in ('ok', 'error')`),
  ],
)

/**
 * A conversation (and thread) on a channel, bound to the popagent session its turns run in.
 * `/new` points it at a fresh session; a recipient that blocked the bot (Telegram's 403) sets
 * `blocked_at`, and nothing more is sent there until a new message arrives from it.
 */
export const channelBindings = pgTable(
  'popagent_channel_bindings',
  {
    id: text().primaryKey(),
    channelId: text()
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    conversation: text().notNull(),
    /** '' when the channel has no threads. */
    thread: text().notNull(),
    sessionId: text().references(() => sessions.id, { onDelete: 'set null' }),
    blockedAt: timestamp({ withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (t) => [uniqueIndex('popagent_channel_bindings_key').on(t.channelId, t.conversation, t.thread)],
)

/**
 * Every inbound event, once: the unique (channel, external id) is the dedupe of redeliveries.
 * `summary` is the parsed event, redacted; `state` says what became of it.
 */
export const channelEvents = pgTable(
  'popagent_channel_events',
  {
    id: text().primaryKey(),
    channelId: text()
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    externalId: text().notNull(),
    bindingId: text().references(() => channelBindings.id, { onDelete: 'set null' }),
    sender: text(),
    kind: text().notNull(),
    summary: jsonb().$type<Record<string, unknown>>().notNull(),
    state: text()
      .$type<'received' | 'refused' | 'running' | 'done' | 'failed' | 'ignored'>()
      .notNull(),
    detail: text(),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('popagent_channel_events_external').on(t.channelId, t.externalId),
    index('popagent_channel_events_recent').on(t.channelId, t.createdAt),
    check(
      'popagent_channel_events_state',
      sql`${t.state} in ('received', 'refused', 'running', 'done', 'failed', 'ignored')`,
    ),
  ],
)

/**
 * The durable outbox: one row per chunk of an answer, sent in `seq` order per chat
 * (`chat_key`). The engine (compute-host/channels/outbox/) claims each chat's first unsent row
 * with SKIP LOCKED, paces the chat by `pace_ms`, and on a 429 or 5xx puts the row back with
 * `next_attempt_at` after the delay the service gave; the rows after it wait their turn.
 */
export const channelOutbox = pgTable(
  'popagent_channel_outbox',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    channelId: text()
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    bindingId: text().references(() => channelBindings.id, { onDelete: 'cascade' }),
    chatKey: text().notNull(),
    /** Where the adapter posts: its conversation and thread. */
    target: jsonb().$type<{ conversation: string; thread: string }>().notNull(),
    deliveryId: text().notNull(),
    seq: integer().notNull(),
    total: integer().notNull(),
    body: text().notNull(),
    buttons: jsonb().$type<{ text: string; data: string }[]>(),
    state: text().$type<'queued' | 'sending' | 'sent' | 'failed' | 'cancelled'>().notNull(),
    attempts: integer().notNull().default(0),
    paceMs: integer().notNull(),
    /** At most `windowMax` chunks of this chat sent per rolling `windowMs` (migration 0036). */
    windowMax: integer(),
    windowMs: integer(),
    nextAttemptAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    leaseUntil: timestamp({ withTimezone: true, mode: 'date' }),
    lastError: text(),
    externalId: text(),
    /**
     * An edit, not a new message: this row's body replaces the text of the service's message
     * `editOf` (a streamed answer's final first chunk, migration 0040).
     */
    editOf: text(),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    sentAt: timestamp({ withTimezone: true, mode: 'date' }),
  },
  (t) => [
    index('popagent_channel_outbox_open')
      .on(t.chatKey, t.id)
      .where(sql`${t.state} in ('queued', 'sending')`),
    index('popagent_channel_outbox_sent').on(t.chatKey, t.sentAt),
    index('popagent_channel_outbox_delivery').on(t.deliveryId, t.seq),
    check(
      'popagent_channel_outbox_state',
      sql`${t.state} in ('queued', 'sending', 'sent', 'failed', 'cancelled')`,
    ),
  ],
)
