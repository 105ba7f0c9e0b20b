import { and, desc, eq, inArray, lt, sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { browserRecordings } from '../../db/schema/index.ts'
import { AppError } from '../errors.ts'
import { createId } from '../ids.ts'

/**
 * Browser recordings as rows (db/schema/browser.ts): one per trace the owner started in a
 * browser session. The host records with the browser server and keeps the file
 * (compute-host/browser/recordings.ts); these rows are what the routes and the UI read. A row
 * holds no page content: ids, times, size, digest and why it stopped.
 */

export type BrowserRecordingView = {
  id: string
  browserSessionId: string
  kind: 'trace'
  state: 'recording' | 'ready' | 'failed'
  bytes: number | null
  sha256: string | null
  startedAt: string
  stoppedAt: string | null
  stopReason: string | null
  error: string | null
}

export const BrowserRecordingNotFound = AppError.define(
  'BROWSER_RECORDING_NOT_FOUND',
  404,
  'no browser recording has that id',
)
export const BrowserRecordingActive = AppError.define(
  'BROWSER_RECORDING_ACTIVE',
  409,
  'this browser session is recording already',
)

type Row = typeof browserRecordings.$inferSelect

function view(row: Row): BrowserRecordingView {
  return {
    id: row.id,
    browserSessionId: row.browserSessionId,
    kind: row.kind,
    state: row.state,
    bytes: row.bytes,
    sha256: row.sha256,
    startedAt: row.startedAt.toISOString(),
    stoppedAt: row.stoppedAt?.toISOString() ?? null,
    stopReason: row.stopReason,
    error: row.error,
  }
}

/** A session's recordings, newest first. */
export async function listBrowserRecordings(
  db: Db,
  browserSessionId: string,
): Promise<BrowserRecordingView[]> {
  const rows = await db
    .select()
    .from(browserRecordings)
    .where(eq(browserRecordings.browserSessionId, browserSessionId))
    .orderBy(desc(browserRecordings.startedAt))
  return rows.map(view)
}

export async function getBrowserRecording(db: Db, id: string): Promise<BrowserRecordingView> {
  const [row] = await db.select().from(browserRecordings).where(eq(browserRecordings.id, id))
  if (!row) throw new BrowserRecordingNotFound({ id })
  return view(row)
}

/** The session's recording in progress, if any. */
export async function activeBrowserRecording(
  db: Db,
  browserSessionId: string,
): Promise<BrowserRecordingView | undefined> {
  const [row] = await db
    .select()
    .from(browserRecordings)
    .where(
      and(
        eq(browserRecordings.browserSessionId, browserSessionId),
        eq(browserRecordings.state, 'recording'),
      ),
    )
  return row && view(row)
}

/** A new recording in progress; the unique index keeps one per session (409 otherwise). */
export async function startBrowserRecording(
  db: Db,
  browserSessionId: string,
): Promise<BrowserRecordingView> {
  const [row] = await db
    .insert(browserRecordings)
    .values({ id: createId('browserRecording'), browserSessionId })
    .onConflictDoNothing()
    .returning()
  if (!row) throw new BrowserRecordingActive({ browserSessionId })
  return view(row)
}

/** Ends a recording in progress: `ready` with its file's size and digest, or `failed` with why. */
export async function finishBrowserRecording(
  db: Db,
  id: string,
  end:
    | { state: 'ready'; bytes: number; sha256: string; reason: string }
    | { state: 'failed'; error: string; reason: string },
): Promise<BrowserRecordingView | undefined> {
  const [row] = await db
    .update(browserRecordings)
    .set({
      state: end.state,
      stoppedAt: new Date(),
      stopReason: end.reason,
      ...(end.state === 'ready'
        ? { bytes: end.bytes, sha256: end.sha256 }
        : { error: end.error.slice(0, 2_000) }),
    })
    .where(and(eq(browserRecordings.id, id), eq(browserRecordings.state, 'recording')))
    .returning()
  return row && view(row)
}

/**
 * Recordings an earlier run of the host left in progress (their server-side trace died with its
 * MCP session): failed, so a session can record again.
 */
export async function failAbandonedBrowserRecordings(
  db: Db,
  ids?: string[],
  error = 'the host stopped while recording',
): Promise<number> {
  const rows = await db
    .update(browserRecordings)
    .set({ state: 'failed', stoppedAt: new Date(), error })
    .where(
      and(
        eq(browserRecordings.state, 'recording'),
        ids ? inArray(browserRecordings.browserSessionId, ids) : sql`true`,
      ),
    )
    .returning({ id: browserRecordings.id })
  return rows.length
}

export async function deleteBrowserRecording(db: Db, id: string): Promise<boolean> {
  const rows = await db
    .delete(browserRecordings)
    .where(eq(browserRecordings.id, id))
    .returning({ id: browserRecordings.id })
  return rows.length === 1
}

/** Deletes the rows of recordings that stopped before `before`; answers their ids (the files). */
export async function pruneBrowserRecordings(db: Db, before: Date): Promise<string[]> {
  const rows = await db
    .delete(browserRecordings)
    .where(
      lt(sql`coalesce(${browserRecordings.stoppedAt}, ${browserRecordings.startedAt})`, before),
    )
    .returning({ id: browserRecordings.id })
  return rows.map((r) => r.id)
}

/** Which of these ids still have a row (the sweep deletes files whose row is gone). */
export async function existingBrowserRecordings(db: Db, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const rows = await db
    .select({ id: browserRecordings.id })
    .from(browserRecordings)
    .where(inArray(browserRecordings.id, ids))
  return new Set(rows.map((r) => r.id))
}
