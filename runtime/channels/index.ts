import { and, desc, eq } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { channelBindings, channelEvents, channelOutbox, channels } from '../../db/schema/index.ts'
import type { ChannelHealth, ChannelKind, ChannelView } from '../contracts/channels.ts'
import { BindingBlocked, BindingNotFound, ChannelNotFound } from './errors.ts'

/**
 * Channels as stored (X6): the reads the edge answers itself. Writes that touch secrets go
 * through the compute host, which holds the vault (compute-host/channels/settings.ts).
 */
export type ChannelRow = typeof channels.$inferSelect
export type BindingRow = typeof channelBindings.$inferSelect

/** The path a channel's service posts to; it is authenticated by signature, not the API key. */
export const inboundPath = (id: string) => `/api/channels/${id}/inbound`

/** A channel as the API shows it: secrets only counted, never shown. */
export function toView(row: ChannelRow): ChannelView {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    enabled: row.enabled,
    workspaceId: row.workspaceId,
    model: row.model,
    settings: row.settings,
    allowedSenders: row.allowedSenders,
    secrets: Object.fromEntries(Object.entries(row.secretIds).map(([k, v]) => [k, v.length])),
    inboundPath: inboundPath(row.id),
    state: row.state,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }
}

export async function list(db: Db): Promise<ChannelView[]> {
  const rows = await db.select().from(channels).orderBy(channels.createdAt, channels.id)
  return rows.map(toView)
}

/** Every channel's state for health: on or off, and working or its last error. */
export async function health(db: Db): Promise<ChannelHealth[]> {
  return db
    .select({
      id: channels.id,
      kind: channels.kind,
      name: channels.name,
      enabled: channels.enabled,
      state: channels.state,
      lastError: channels.lastError,
    })
    .from(channels)
    .orderBy(channels.createdAt, channels.id)
}

export async function rowOf(db: Db, id: string): Promise<ChannelRow | undefined> {
  const [row] = await db.select().from(channels).where(eq(channels.id, id))
  return row
}

export async function get(db: Db, id: string): Promise<ChannelView> {
  const row = await rowOf(db, id)
  if (!row) throw new ChannelNotFound({ id })
  return toView(row)
}

/**
 * The kind of the enabled channel with this id, or undefined: the edge's first check of an
 * inbound event (the kind decides how an accepted event is acknowledged).
 */
export async function acceptsEvents(db: Db, id: string): Promise<ChannelKind | undefined> {
  const [row] = await db
    .select({ enabled: channels.enabled, kind: channels.kind })
    .from(channels)
    .where(eq(channels.id, id))
  return row?.enabled === true ? row.kind : undefined
}

/** The newest events first: what came in, and what became of each. */
export async function events(db: Db, channelId: string, limit: number) {
  await get(db, channelId)
  const rows = await db
    .select()
    .from(channelEvents)
    .where(eq(channelEvents.channelId, channelId))
    .orderBy(desc(channelEvents.createdAt), desc(channelEvents.id))
    .limit(limit)
  return rows.map((r) => ({
    id: r.id,
    externalId: r.externalId,
    bindingId: r.bindingId,
    sender: r.sender,
    kind: r.kind,
    summary: r.summary,
    state: r.state,
    detail: r.detail,
    createdAt: r.createdAt.toISOString(),
  }))
}

/** The newest outbox rows first, each chunk with its state (the text itself is not listed). */
export async function deliveries(db: Db, channelId: string, limit: number) {
  await get(db, channelId)
  const rows = await db
    .select()
    .from(channelOutbox)
    .where(eq(channelOutbox.channelId, channelId))
    .orderBy(desc(channelOutbox.id))
    .limit(limit)
  return rows.map((r) => ({
    id: r.id,
    bindingId: r.bindingId,
    deliveryId: r.deliveryId,
    seq: r.seq,
    total: r.total,
    chars: r.body.length,
    state: r.state,
    attempts: r.attempts,
    nextAttemptAt: r.nextAttemptAt.toISOString(),
    lastError: r.lastError,
    sentAt: r.sentAt?.toISOString() ?? null,
  }))
}

export async function bindings(db: Db, channelId: string) {
  await get(db, channelId)
  const rows = await db
    .select()
    .from(channelBindings)
    .where(eq(channelBindings.channelId, channelId))
    .orderBy(desc(channelBindings.updatedAt))
  return rows.map((r) => ({
    id: r.id,
    conversation: r.conversation,
    thread: r.thread,
    sessionId: r.sessionId,
    blockedAt: r.blockedAt?.toISOString() ?? null,
    updatedAt: r.updatedAt.toISOString(),
  }))
}

export async function bindingOf(db: Db, channelId: string, bindingId: string) {
  const [row] = await db
    .select()
    .from(channelBindings)
    .where(and(eq(channelBindings.id, bindingId), eq(channelBindings.channelId, channelId)))
  return row
}

/**
 * A binding a task or schedule may post its results to: it must exist and not be blocked by its
 * recipient (a later block stops the posting at send time; the outbox cancels it there).
 */
export async function assertDeliverable(db: Db, bindingId: string | null | undefined) {
  if (!bindingId) return
  const [row] = await db
    .select({ blockedAt: channelBindings.blockedAt })
    .from(channelBindings)
    .where(eq(channelBindings.id, bindingId))
  if (!row) throw new BindingNotFound({ bindingId })
  if (row.blockedAt) throw new BindingBlocked({ bindingId })
}
