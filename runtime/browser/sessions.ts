import { and, desc, eq, isNull, sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { browserSessions } from '../../db/schema/index.ts'
import { AppError } from '../errors.ts'
import { createId } from '../ids.ts'

/**
 * Browser sessions as rows (db/schema/browser.ts): opened by the host when a chat session or
 * task first uses the browser, counted per call, handed between the agent and the owner
 * (takeover), closed with a reason. The host keeps the live MCP session itself
 * (compute-host/browser/sessions.ts); these rows are what the routes and the UI read.
 */

export type BrowserSessionOwner = { chatSessionId: string } | { taskId: string }
export type BrowserController = 'agent' | 'human'

export type BrowserSessionView = {
  id: string
  chatSessionId: string | null
  taskId: string | null
  controller: BrowserController
  callCount: number
  lastOperation: string | null
  openedAt: string
  lastCallAt: string | null
  closedAt: string | null
  closeReason: string | null
}

export const BrowserSessionNotOpen = AppError.define(
  'BROWSER_SESSION_NOT_OPEN',
  404,
  'no open browser session has that id',
)

type Row = typeof browserSessions.$inferSelect

function view(row: Row): BrowserSessionView {
  return {
    id: row.id,
    chatSessionId: row.chatSessionId,
    taskId: row.taskId,
    controller: row.controller,
    callCount: row.callCount,
    lastOperation: row.lastOperation,
    openedAt: row.openedAt.toISOString(),
    lastCallAt: row.lastCallAt?.toISOString() ?? null,
    closedAt: row.closedAt?.toISOString() ?? null,
    closeReason: row.closeReason,
  }
}

function ownedBy(owner: BrowserSessionOwner) {
  return 'chatSessionId' in owner
    ? eq(browserSessions.chatSessionId, owner.chatSessionId)
    : eq(browserSessions.taskId, owner.taskId)
}

/** The newest sessions, open ones first. */
export async function listBrowserSessions(db: Db, limit = 100): Promise<BrowserSessionView[]> {
  const rows = await db
    .select()
    .from(browserSessions)
    .orderBy(sql`${browserSessions.closedAt} is not null`, desc(browserSessions.openedAt))
    .limit(limit)
  return rows.map(view)
}

export async function getBrowserSession(
  db: Db,
  id: string,
): Promise<BrowserSessionView | undefined> {
  const [row] = await db.select().from(browserSessions).where(eq(browserSessions.id, id))
  return row && view(row)
}

/** The owner's open session, if any. */
export async function openBrowserSessionOf(
  db: Db,
  owner: BrowserSessionOwner,
): Promise<BrowserSessionView | undefined> {
  const [row] = await db
    .select()
    .from(browserSessions)
    .where(and(ownedBy(owner), isNull(browserSessions.closedAt)))
  return row && view(row)
}

/**
 * A new open session for the owner. One left open by a connection this host no longer holds (a
 * restart, a lost server) is closed first, in the same transaction; its controller carries over,
 * so an owner's takeover outlasts a reconnect.
 */
export async function openBrowserSession(
  db: Db,
  owner: BrowserSessionOwner,
  mcpSessionId: string | undefined,
): Promise<BrowserSessionView> {
  return db.transaction(async (tx) => {
    const [old] = await tx
      .update(browserSessions)
      .set({ closedAt: new Date(), closeReason: 'replaced: its connection was lost' })
      .where(and(ownedBy(owner), isNull(browserSessions.closedAt)))
      .returning({ controller: browserSessions.controller })
    const [row] = await tx
      .insert(browserSessions)
      .values({
        id: createId('browserSession'),
        ...owner,
        mcpSessionId: mcpSessionId ?? null,
        controller: old?.controller ?? 'agent',
      })
      .returning()
    return view(row!)
  })
}

/**
 * Records one call in one statement and answers who controls the session: an interactive call
 * is counted only when the agent controls it (the caller refuses it otherwise). Undefined when
 * the session is closed.
 *
 * The statement's own transaction commits without waiting for the WAL flush (`set_config(...,
 * true)` is local to it): the record is bookkeeping (a count, the last call's time and name),
 * and waiting for the disk was most of what a browser call added (about 1–3 ms of a shared
 * machine's fsync, every call). The controller it answers is read in the same statement, so a
 * takeover (`setBrowserController`, which does wait) is seen as before; a database crash can
 * only lose the last calls' counts.
 */
export async function recordBrowserCall(
  db: Db,
  id: string,
  call: { operation: string; interactive: boolean },
): Promise<BrowserController | undefined> {
  const counts = call.interactive
    ? sql`case when ${browserSessions.controller} = 'agent' then 1 else 0 end`
    : sql`1`
  const [row] = await db
    .update(browserSessions)
    .set({
      callCount: sql`${browserSessions.callCount} + ${counts}`,
      lastCallAt: new Date(),
      lastOperation: call.operation,
    })
    .where(
      and(
        eq(browserSessions.id, id),
        isNull(browserSessions.closedAt),
        sql`set_config('synchronous_commit', 'off', true) = 'off'`,
      ),
    )
    .returning({ controller: browserSessions.controller })
  return row?.controller
}

/** Takeover (`human`) and hand-back (`agent`) of an open session. */
export async function setBrowserController(
  db: Db,
  id: string,
  controller: BrowserController,
): Promise<BrowserSessionView> {
  const [row] = await db
    .update(browserSessions)
    .set({ controller })
    .where(and(eq(browserSessions.id, id), isNull(browserSessions.closedAt)))
    .returning()
  if (!row) throw new BrowserSessionNotOpen({ id })
  return view(row)
}

/** Closes one session; false when it was closed already. */
export async function closeBrowserSession(db: Db, id: string, reason: string): Promise<boolean> {
  const rows = await db
    .update(browserSessions)
    .set({ closedAt: new Date(), closeReason: reason })
    .where(and(eq(browserSessions.id, id), isNull(browserSessions.closedAt)))
    .returning({ id: browserSessions.id })
  return rows.length === 1
}

/** Closes every open session (a host that stops or starts holds no MCP session any more). */
export async function closeAllBrowserSessions(db: Db, reason: string): Promise<number> {
  const rows = await db
    .update(browserSessions)
    .set({ closedAt: new Date(), closeReason: reason })
    .where(isNull(browserSessions.closedAt))
    .returning({ id: browserSessions.id })
  return rows.length
}
