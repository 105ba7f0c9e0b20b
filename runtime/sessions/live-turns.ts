import { and, eq, inArray, notInArray, or, sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { rowsOf } from '../../db/rows.ts'
import { liveTurns, sessions } from '../../db/schema/index.ts'
import type { SessionSummary, UiMessage } from '../contracts/sessions.ts'
import { createId } from '../ids.ts'
import { appendReleasingTurn, appendTurn } from './index.ts'
import { versionsAre } from '../secrets/index.ts'

/**
 * The durable side of a live turn (db/schema/live-turns.ts): the row claimed when a turn starts,
 * kept fresh while its host runs it, and removed in the same transaction that saves the turn.
 * The host keeps the turn itself in memory (compute-host/runs/live-turns.ts).
 */

/** What the reply of a turn no host finished says, as the error the transcript shows. */
export const INTERRUPTED_BY_RESTART =
  'popagent restarted before this reply finished, so the turn was interrupted. Send the message again to retry.'

export type LiveTurnClaim = {
  sessionId: string
  turnId: string
  host: string
  message: UiMessage
  /** When given, the session must belong to this workspace, or nothing is claimed. */
  workspaceId?: string
  /**
   * The vault's secrets as the host that redacted `message` knows them (id → version). When
   * given, nothing is claimed unless the stored secrets are exactly these: a secret another host
   * stored since could be in the message unredacted, and the mark keeps the message.
   */
  vaultKnown?: ReadonlyMap<string, number>
}

/** The session as a claim found it; undefined when there is no such session. */
export type ClaimedSession = { workspaceId: string; archived: boolean; messageCount: number }

export type LiveTurnClaimed = { claimed: boolean; session: ClaimedSession | undefined }

/**
 * Claims the session for a new turn, and answers the session as the claim found it. Not claimed
 * when a turn already runs in it (on any host), or when the session is not there to claim:
 * missing, archived, or of another workspace than the one given, or (with `vaultKnown`) when the
 * vault holds other secrets than those the message was redacted with. The session is checked and
 * read in the claim's own statement, so the chat driver's turn starts with this one round trip
 * (beside its configuration's version) and never leaves a mark on a session it then refuses.
 *
 * Unlike the browser call record (runtime/browser/sessions.ts), the claim keeps waiting for the
 * WAL flush (1–3 ms before the model call on a busy disk): committed without it, a PostgreSQL
 * crash in the next fraction of a second could lose the mark while the turn runs on. The host's
 * next heartbeat then reads the mark as recovered elsewhere and stops the turn, and its end saves
 * nothing (saveLiveTurn) — the user's message and the answer lost, the one outcome the mark
 * exists to rule out — and the session would take a second turn meanwhile.
 */
export async function claimLiveTurn(db: Db, claim: LiveTurnClaim): Promise<LiveTurnClaimed> {
  const ofWorkspace =
    claim.workspaceId === undefined ? sql`` : sql` and s.workspace_id = ${claim.workspaceId}`
  const vaultCurrent = claim.vaultKnown ? sql` and ${versionsAre(claim.vaultKnown)}` : sql``
  // The session as the claim found it comes back whether or not the claim was made, so the
  // driver says why it refused without a read of its own.
  const rows = rowsOf<{
    workspace_id: string
    archived: boolean
    message_count: number
    claimed: boolean
  }>(
    await db.execute(sql`
      with s as (
        select ${sessions.id} as id, ${sessions.workspaceId} as workspace_id,
          ${sessions.archivedAt} is not null as archived, ${sessions.messageCount} as message_count
        from ${sessions} where ${sessions.id} = ${claim.sessionId}
      ), claimed as (
        insert into ${liveTurns} (session_id, turn_id, host, message)
        select s.id, ${claim.turnId}, ${claim.host}, ${JSON.stringify(claim.message)}::jsonb
        from s where not s.archived${ofWorkspace}${vaultCurrent}
        on conflict (session_id) do nothing
        returning turn_id
      )
      select s.workspace_id, s.archived, s.message_count, exists (select 1 from claimed) as claimed
      from s`),
  )
  const [row] = rows
  if (!row) return { claimed: false, session: undefined }
  return {
    claimed: row.claimed,
    session: {
      workspaceId: row.workspace_id,
      archived: row.archived,
      messageCount: Number(row.message_count),
    },
  }
}

/**
 * Saves a finished turn's messages and clears its mark, in one statement, so a crash leaves
 * either the mark (and recovery saves the user's message) or the saved turn, never both or
 * neither. Answers undefined, saving nothing, when the mark is gone: recovery closed the turn
 * elsewhere (its host was cut off from the database past the lease) and saved it already.
 */
export const saveLiveTurn = appendReleasingTurn

/** Clears the mark of a turn that never started streaming (it failed to prepare): nothing saved. */
export async function releaseLiveTurn(db: Db, turn: { sessionId: string; turnId: string }) {
  await db
    .delete(liveTurns)
    .where(and(eq(liveTurns.sessionId, turn.sessionId), eq(liveTurns.turnId, turn.turnId)))
}

/** Renews the marks of the turns this host runs; answers the ids it still holds. */
export async function beatLiveTurns(db: Db, host: string, turnIds: string[]): Promise<string[]> {
  if (turnIds.length === 0) return []
  const rows = await db
    .update(liveTurns)
    .set({ heartbeatAt: sql`now()` })
    .where(and(eq(liveTurns.host, host), inArray(liveTurns.turnId, turnIds)))
    .returning({ turnId: liveTurns.turnId })
  return rows.map((r) => r.turnId)
}

export type RecoveredTurn = { sessionId: string; turnId: string; host: string }

/**
 * Closes the turns no host runs any more: any host's whose mark was not renewed for `leaseMs`
 * (that host is gone), and, when given, this host's own rows (`hostRows`: it just restarted, so
 * none of them runs) or every row (`everyRow`: the embedded database, one process at a time);
 * `running` are never closed. Each gets its user's message and an assistant message saying a
 * restart interrupted it, appended in the transaction that clears its mark; rows another host is
 * closing at the same moment are skipped (SKIP LOCKED), so a turn is closed once.
 */
export async function recoverLiveTurns(
  db: Db,
  options: { hostRows?: string; everyRow?: boolean; running: string[]; leaseMs: number },
): Promise<RecoveredTurn[]> {
  return db.transaction(async (tx) => {
    const stale = sql`${liveTurns.heartbeatAt} < now() - make_interval(secs => ${options.leaseMs / 1000})`
    const rows = await tx
      .select()
      .from(liveTurns)
      .where(
        and(
          options.everyRow
            ? undefined
            : options.hostRows
              ? or(eq(liveTurns.host, options.hostRows), stale)
              : stale,
          options.running.length > 0 ? notInArray(liveTurns.turnId, options.running) : undefined,
        ),
      )
      .for('update', { skipLocked: true })
    for (const row of rows) {
      await tx.delete(liveTurns).where(eq(liveTurns.sessionId, row.sessionId))
      await appendTurn(tx as unknown as Db, row.sessionId, [
        row.message as UiMessage,
        interruptedReply(row.turnId),
      ])
    }
    return rows.map(({ sessionId, turnId, host }) => ({ sessionId, turnId, host }))
  })
}

/** The assistant message that stands for a reply a restart lost. */
function interruptedReply(turnId: string): UiMessage {
  return {
    id: createId('message'),
    role: 'assistant',
    parts: [],
    metadata: { turnId, interrupted: 'restart', error: INTERRUPTED_BY_RESTART },
  }
}
