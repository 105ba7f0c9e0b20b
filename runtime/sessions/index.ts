import { and, asc, desc, eq, inArray, isNotNull, isNull, or, sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { DEFAULT_WORKSPACE_ID } from '../../db/data-migrations/0002-register-default-workspace.ts'
import { rawRowMapper, rowsOf } from '../../db/rows.ts'
import { liveTurns, sessionMessages, sessions } from '../../db/schema/index.ts'
import type { LiveTurnRef } from '../contracts/live-turns.ts'
import type {
  CreateSessionInput,
  ListSessionsQuery,
  PatchSessionInput,
  SaveSessionInput,
  Session,
  SessionSummary,
  UiMessage,
} from '../contracts/sessions.ts'
import { createId } from '../ids.ts'
import { PG_FOREIGN_KEY_VIOLATION, pgErrorCode } from '../pg-errors.ts'
import { SessionNotFound, WorkspaceNotFound } from './errors.ts'

export { SessionNotFound, WorkspaceNotFound }

const DEFAULT_TITLE = 'New chat'

// The row holds no messages (they are rows of `popagent_session_messages`), so the whole row is
// a session's summary.
type Row = typeof sessions.$inferSelect

/** Messages as rows `m(value, ordinality)`, ordinality from 1: one parameter however many. */
const numbered = (messages: UiMessage[]) =>
  sql`jsonb_array_elements(${JSON.stringify(messages)}::jsonb) with ordinality as m`

const toRow = rawRowMapper(sessions)

/** The live turn's columns a summary shows, read beside the session's row by a left join. */
const liveColumns = { turnId: liveTurns.turnId, startedAt: liveTurns.startedAt }
type LiveColumns = { turnId: string | null; startedAt: Date | null } | null

const liveRef = (live: LiveColumns): LiveTurnRef | null =>
  live?.turnId && live.startedAt
    ? { turnId: live.turnId, startedAt: live.startedAt.toISOString() }
    : null

function toSummary(row: Row, live: LiveColumns = null): SessionSummary {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    title: row.title,
    titleLocked: row.titleLocked,
    revision: row.revision,
    messageCount: row.messageCount,
    archivedAt: row.archivedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    liveTurn: liveRef(live),
  }
}

/** Newest first, active or archived, optionally in one workspace; never more than the cap. */
export async function list(db: Db, query: ListSessionsQuery): Promise<SessionSummary[]> {
  const rows = await db
    .select({ session: sessions, live: liveColumns })
    .from(sessions)
    .leftJoin(liveTurns, eq(liveTurns.sessionId, sessions.id))
    .where(
      and(
        query.status === 'archived' ? isNotNull(sessions.archivedAt) : isNull(sessions.archivedAt),
        query.workspaceId ? eq(sessions.workspaceId, query.workspaceId) : undefined,
      ),
    )
    .orderBy(desc(sessions.updatedAt), desc(sessions.id))
    .limit(query.limit)
  return rows.map((r) => toSummary(r.session, r.live))
}

export async function get(db: Db, id: string): Promise<Session | undefined> {
  // One statement, so the row and its messages are of one moment: a row per message, the
  // session's columns beside each. Aggregating them into one array in the database instead took
  // over ten times as long at 2 MB of messages. A running turn joins the first row only (its
  // user's message is not repeated on every row), which ordering by position puts first.
  const rows = await db
    .select({
      session: sessions,
      message: sessionMessages.message,
      live: { ...liveColumns, message: liveTurns.message },
    })
    .from(sessions)
    .leftJoin(sessionMessages, eq(sessionMessages.sessionId, sessions.id))
    .leftJoin(
      liveTurns,
      and(
        eq(liveTurns.sessionId, sessions.id),
        or(isNull(sessionMessages.position), eq(sessionMessages.position, 0)),
      ),
    )
    .where(eq(sessions.id, id))
    .orderBy(asc(sessionMessages.position))
  const [first] = rows
  if (!first) return undefined
  const messages = rows.flatMap((r) => (r.message === null ? [] : [r.message as UiMessage]))
  const live = liveRef(first.live)
  const liveTurn = live && { ...live, message: first.live!.message as UiMessage }
  return { ...toSummary(first.session), messages, liveTurn }
}

/**
 * One session without its messages, for the checks a chat turn, an archive or an undo makes: the
 * conversation grows with every turn, and reading it to learn the workspace or whether a turn is
 * the first cost about 30 ms at 50 coding turns (bench `session-growth`).
 */
export async function getSummary(db: Db, id: string): Promise<SessionSummary | undefined> {
  const [row] = await db
    .select({ session: sessions, live: liveColumns })
    .from(sessions)
    .leftJoin(liveTurns, eq(liveTurns.sessionId, sessions.id))
    .where(eq(sessions.id, id))
  return row && toSummary(row.session, row.live)
}

/** The workspace of the most recently updated active session; none before the first session. */
export async function lastActiveWorkspace(db: Db): Promise<string | undefined> {
  const [row] = await db
    .select({ workspaceId: sessions.workspaceId })
    .from(sessions)
    .where(isNull(sessions.archivedAt))
    .orderBy(desc(sessions.updatedAt))
    .limit(1)
  return row?.workspaceId
}

export async function create(db: Db, input: CreateSessionInput): Promise<Session> {
  const workspaceId = input.workspaceId ?? DEFAULT_WORKSPACE_ID
  try {
    const [row] = await db
      .insert(sessions)
      .values({
        id: createId('session'),
        workspaceId,
        title: input.title ?? DEFAULT_TITLE,
        titleLocked: input.title !== undefined,
      })
      .returning()
    return { ...toSummary(row!), messages: [], liveTurn: null }
  } catch (error) {
    if (pgErrorCode(error) === PG_FOREIGN_KEY_VIOLATION)
      throw new WorkspaceNotFound({ workspaceId })
    throw error
  }
}

export type SaveResult =
  { ok: true; session: Session } | { ok: false; reason: 'conflict'; session: Session }

/**
 * Saves messages only if the caller saw the current revision; the check and the increment are one
 * conditional UPDATE, so of two saves naming the same revision exactly one wins. A suggested
 * title is ignored once the user has renamed the session.
 */
export async function save(db: Db, id: string, input: SaveSessionInput): Promise<SaveResult> {
  const saved = await db.transaction(async (tx) => {
    const [row] = await tx
      .update(sessions)
      .set({
        messageCount: input.messages.length,
        revision: sql`${sessions.revision} + 1`,
        title:
          input.title === undefined
            ? sql`${sessions.title}`
            : sql`case when ${sessions.titleLocked} then ${sessions.title} else ${input.title} end`,
        updatedAt: sql`now()`,
      })
      .where(and(eq(sessions.id, id), eq(sessions.revision, input.revision)))
      .returning()
    if (!row) return undefined
    // The row lock taken above holds off every other save and append until this commits.
    await tx.delete(sessionMessages).where(eq(sessionMessages.sessionId, id))
    await tx.execute(
      sql`insert into ${sessionMessages} (session_id, position, message)
        select ${id}, (m.ordinality - 1)::integer, m.value from ${numbered(input.messages)}`,
    )
    const [live] = await tx
      .select({ ...liveColumns, message: liveTurns.message })
      .from(liveTurns)
      .where(eq(liveTurns.sessionId, id))
    return { row, live }
  })
  if (saved) {
    const ref = liveRef(saved.live ?? null)
    const liveTurn = ref && { ...ref, message: saved.live!.message as UiMessage }
    return {
      ok: true,
      session: { ...toSummary(saved.row), messages: input.messages, liveTurn },
    }
  }
  const current = await get(db, id)
  if (!current) throw new SessionNotFound({ id })
  return { ok: false, reason: 'conflict', session: current }
}

/**
 * Appends a finished turn's messages in one statement (so nothing written meanwhile is lost) and
 * increments the revision; an editor holding the old revision then gets a 409 and reloads.
 * The default title becomes the turn's first words unless the user renamed the session. Returns
 * the session without its messages: the caller wants the new revision, and sending the whole
 * conversation back after every turn cost more than the append itself.
 */
export async function appendTurn(
  db: Db,
  id: string,
  messages: UiMessage[],
  suggestedTitle?: string,
): Promise<SessionSummary> {
  const [row] = rowsOf<Record<string, unknown>>(
    await db.execute(sql`
      with ${appendParts(id, messages, suggestedTitle)}
      select updated.*, ${liveTurns.turnId} as live_turn_id,
        ${liveTurns.startedAt} as live_started_at
      from updated left join ${liveTurns} on ${liveTurns.sessionId} = updated.id`),
  )
  if (!row) throw new SessionNotFound({ id })
  return summaryOfAppended(row)
}

/**
 * Saves a live turn's messages as `appendTurn` does and clears its mark (`turnId`), in one
 * statement: both happen or neither, and a chat turn's end is one round trip, not a transaction's
 * four. Answers undefined, saving nothing, when the mark is gone (runtime/sessions/live-turns.ts).
 */
export async function appendReleasingTurn(
  db: Db,
  turn: { sessionId: string; turnId: string; messages: UiMessage[]; title?: string | undefined },
): Promise<SessionSummary | undefined> {
  const { sessionId: id, turnId } = turn
  // The statement's parts all see the rows as it began, so the session's mark is read as cleared
  // (live_turn_id null) rather than joined: it is the one this statement deletes.
  const [row] = rowsOf<Record<string, unknown>>(
    await db.execute(sql`
      with released as (
        delete from ${liveTurns}
        where ${liveTurns.sessionId} = ${id} and ${liveTurns.turnId} = ${turnId}
        returning ${liveTurns.turnId}
      ), ${appendParts(id, turn.messages, turn.title, sql` and exists (select 1 from released)`)}
      select updated.*, null as live_turn_id, null as live_started_at
      from released left join updated on true`),
  )
  if (!row) return undefined
  if (row.id === null) throw new SessionNotFound({ id })
  return summaryOfAppended(row)
}

/** The `updated` and `added` parts of an append: the session row's update, then its messages. */
function appendParts(id: string, messages: UiMessage[], suggestedTitle?: string, gate = sql``) {
  const title =
    suggestedTitle === undefined
      ? sql`title`
      : sql`case when title_locked or title <> ${DEFAULT_TITLE} then title else ${suggestedTitle} end`
  // The row's update takes its lock and numbers the new messages after the last.
  return sql`updated as (
      update ${sessions}
      set message_count = message_count + ${messages.length}, revision = revision + 1,
        title = ${title}, updated_at = now()
      where id = ${id}${gate}
      returning *
    ), added as (
      insert into ${sessionMessages} (session_id, position, message)
      select updated.id, (updated.message_count - ${messages.length} + m.ordinality - 1)::integer,
        m.value
      from updated, ${numbered(messages)}
    )`
}

/** The summary an append's statement answers (the row with its live turn's two columns). */
function summaryOfAppended(row: Record<string, unknown>): SessionSummary {
  const { live_turn_id: turnId, live_started_at: startedAt, ...session } = row
  return toSummary(toRow(session), {
    turnId: (turnId as string | null) ?? null,
    startedAt: startedAt ? new Date(startedAt as string) : null,
  })
}

/** Ids of every session (active and archived) in one workspace. */
export async function idsInWorkspace(db: Db, workspaceId: string): Promise<string[]> {
  const rows = await db
    .select({ id: sessions.id })
    .from(sessions)
    .where(eq(sessions.workspaceId, workspaceId))
  return rows.map((r) => r.id)
}

/** Removes these session rows (threads already deleted by the caller); returns how many. */
export async function removeMany(db: Db, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0
  const deleted = await db
    .delete(sessions)
    .where(inArray(sessions.id, ids))
    .returning({ id: sessions.id })
  return deleted.length
}

/** Rename (which locks the title) and archive or restore; messages and revision are untouched. */
export async function patch(db: Db, id: string, input: PatchSessionInput): Promise<Session> {
  const [row] = await db
    .update(sessions)
    .set({
      ...(input.title !== undefined && { title: input.title, titleLocked: true }),
      ...(input.archived !== undefined && {
        archivedAt: input.archived ? sql`coalesce(${sessions.archivedAt}, now())` : null,
      }),
      updatedAt: sql`now()`,
    })
    .where(eq(sessions.id, id))
    .returning({ id: sessions.id })
  if (!row) throw new SessionNotFound({ id })
  // The session as it stands after the update, messages included, of one moment.
  const session = await get(db, id)
  if (!session) throw new SessionNotFound({ id })
  return session
}

/**
 * Removes the session row. Callers delete the session's Mastra thread through the compute host
 * first (handlers/routes/sessions.ts), so a row is never gone while its memory remains.
 */
export async function remove(db: Db, id: string): Promise<void> {
  const deleted = await db
    .delete(sessions)
    .where(eq(sessions.id, id))
    .returning({ id: sessions.id })
  if (deleted.length === 0) throw new SessionNotFound({ id })
}
