import { and, eq, inArray, lt, sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { turnBlobs, turnChanges } from '../../db/schema/index.ts'
import type { UndoFileResult } from '../contracts/turn-changes.ts'
import { AppError } from '../errors.ts'

/**
 * Per-turn undo's storage (B3): popagent's own content store and each turn's change set. The
 * compute host does the filesystem work (compute-host/undo/); this module only keeps rows.
 */

export const TurnNotFound = AppError.define(
  'TURN_NOT_FOUND',
  404,
  'this session has no turn with that id that changed files',
)
export const TurnNotUndoable = AppError.define(
  'TURN_NOT_UNDOABLE',
  409,
  'this turn cannot be undone',
)

/** One file's state: its content by hash, or what is known of a file too large to keep. */
export type FileState =
  | { kind: 'file'; hash: string; size: number; mode: number }
  | { kind: 'unkept'; size: number; mode: number; mtimeMs: number; reason: string }
  | { kind: 'link'; target: string }

/**
 * One file of a turn's change set: null is "absent". `mixed`: someone else changed the file too,
 * between two of the agent's writes to it, so undo cannot separate the agent's part.
 */
export type StoredChange = {
  path: string
  before: FileState | null
  after: FileState | null
  mixed?: boolean
}

export type TurnRow = typeof turnChanges.$inferSelect

/**
 * Keeps blob contents by hash, as the compute host sealed them (encrypted text in a versioned
 * form, `v1:…`, compute-host/undo/blob-cipher.ts): new ones are inserted, known ones touched. A
 * known row still in the plain form written before encryption (no ':') gets the sealed content
 * instead of a touch, which would write its clear bytes into the write-ahead log once more.
 */
export async function keepBlobs(
  db: Db,
  blobs: ReadonlyArray<{ hash: string; size: number; content: string }>,
): Promise<void> {
  const unique = [...new Map(blobs.map((b) => [b.hash, b])).values()]
  // Only the first characters are read, so a large content is not detoasted whole.
  const plain = sql`position(':' in substr(${turnBlobs.content}, 1, 8)) = 0`
  for (let i = 0; i < unique.length; i += 500) {
    const batch = unique.slice(i, i + 500)
    const hashes = batch.map((b) => b.hash)
    const upgraded = new Set<string>()
    const legacy = await db
      .select({ hash: turnBlobs.hash })
      .from(turnBlobs)
      .where(and(inArray(turnBlobs.hash, hashes), plain))
    const given = new Map(batch.map((b) => [b.hash, b.content]))
    for (const { hash } of legacy) {
      const sealed = given.get(hash)
      if (!sealed?.includes(':')) continue
      await db
        .update(turnBlobs)
        .set({ content: sealed, lastUsedAt: new Date() })
        .where(eq(turnBlobs.hash, hash))
      upgraded.add(hash)
    }
    const touch = hashes.filter((h) => !upgraded.has(h))
    const known = new Set([
      ...upgraded,
      ...(touch.length === 0
        ? []
        : await db
            .update(turnBlobs)
            .set({ lastUsedAt: new Date() })
            .where(inArray(turnBlobs.hash, touch))
            .returning({ hash: turnBlobs.hash })
      ).map((r) => r.hash),
    ])
    // Inserted in pieces of a bounded size, so one statement never carries the whole snapshot.
    let piece: typeof batch = []
    let bytes = 0
    const flush = async () => {
      if (piece.length === 0) return
      await db.insert(turnBlobs).values(piece).onConflictDoNothing()
      piece = []
      bytes = 0
    }
    for (const blob of batch) {
      if (known.has(blob.hash)) continue
      piece.push(blob)
      bytes += blob.content.length
      if (bytes > 4_000_000) await flush()
    }
    await flush()
  }
}

/** The stored contents of these hashes that the store still has, still sealed. */
export async function readBlobs(db: Db, hashes: readonly string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>()
  const unique = [...new Set(hashes)]
  for (let i = 0; i < unique.length; i += 200) {
    const rows = await db
      .select({ hash: turnBlobs.hash, content: turnBlobs.content })
      .from(turnBlobs)
      .where(inArray(turnBlobs.hash, unique.slice(i, i + 200)))
    for (const row of rows) found.set(row.hash, row.content)
  }
  return found
}

/** Which of these hashes the store still has (contents not read). */
export async function existingBlobs(db: Db, hashes: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>()
  const unique = [...new Set(hashes)]
  for (let i = 0; i < unique.length; i += 1_000) {
    const rows = await db
      .select({ hash: turnBlobs.hash })
      .from(turnBlobs)
      .where(inArray(turnBlobs.hash, unique.slice(i, i + 1_000)))
    for (const row of rows) found.add(row.hash)
  }
  return found
}

export async function startTurn(
  db: Db,
  turn: { turnId: string; sessionId: string; workspaceId: string; repository: string },
): Promise<void> {
  await db
    .insert(turnChanges)
    .values({ ...turn, state: 'recording' })
    .onConflictDoNothing()
}

export async function recordTurn(
  db: Db,
  turnId: string,
  files: readonly StoredChange[],
  limits: Record<string, unknown>,
): Promise<void> {
  await db
    .update(turnChanges)
    .set({ state: 'recorded', files: [...files], limits, updatedAt: new Date() })
    .where(and(eq(turnChanges.turnId, turnId), eq(turnChanges.state, 'recording')))
}

export async function failTurn(db: Db, turnId: string, error: string): Promise<void> {
  await db
    .update(turnChanges)
    .set({ state: 'failed', error: error.slice(0, 2_000), updatedAt: new Date() })
    .where(and(eq(turnChanges.turnId, turnId), eq(turnChanges.state, 'recording')))
}

export async function getTurn(
  db: Db,
  sessionId: string,
  turnId: string,
): Promise<TurnRow | undefined> {
  const [row] = await db
    .select()
    .from(turnChanges)
    .where(and(eq(turnChanges.turnId, turnId), eq(turnChanges.sessionId, sessionId)))
  return row
}

/**
 * Claims the turn for its one undo: only a recorded turn moves to `undoing`, in one statement,
 * so two undo requests never both run; the loser hears why.
 */
export async function claimUndo(db: Db, sessionId: string, turnId: string): Promise<TurnRow> {
  const [row] = await db
    .update(turnChanges)
    .set({ state: 'undoing', updatedAt: new Date() })
    .where(
      and(
        eq(turnChanges.turnId, turnId),
        eq(turnChanges.sessionId, sessionId),
        eq(turnChanges.state, 'recorded'),
      ),
    )
    .returning()
  if (row) return row
  const current = await getTurn(db, sessionId, turnId)
  if (!current) throw new TurnNotFound({ sessionId, turnId })
  const why: Record<string, string> = {
    recording: 'the turn is still running; undo it once it has ended',
    failed: `the turn's changes could not be recorded, so popagent cannot undo it safely${current.error ? `: ${current.error}` : ''}`,
    undoing: 'this turn is being undone right now',
    undone: 'this turn was already undone; undo runs once',
  }
  throw new TurnNotUndoable(
    { sessionId, turnId, state: current.state },
    { message: why[current.state] ?? 'this turn cannot be undone' },
  )
}

export async function finishUndo(
  db: Db,
  turnId: string,
  results: readonly UndoFileResult[],
): Promise<void> {
  await db
    .update(turnChanges)
    .set({ state: 'undone', undo: [...results], updatedAt: new Date() })
    .where(eq(turnChanges.turnId, turnId))
}

/**
 * Drops contents that no recorded turn refers to and that no snapshot used in the last `hours`
 * (a running turn keeps its before-state in memory and its contents here; the grace covers it).
 */
export async function collectGarbage(db: Db, hours = 6): Promise<void> {
  await db.delete(turnBlobs).where(
    and(
      lt(turnBlobs.lastUsedAt, new Date(Date.now() - hours * 3_600_000)),
      sql`not exists (
        select 1 from ${turnChanges} t, jsonb_array_elements(coalesce(t.files, '[]'::jsonb)) f
        where f->'before'->>'hash' = ${turnBlobs.hash} or f->'after'->>'hash' = ${turnBlobs.hash}
      )`,
    ),
  )
}
