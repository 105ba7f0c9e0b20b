import { query, revalidate } from '@solidjs/router'
import { api, ok } from '../api.ts'

/** Per-turn undo (B3): what one chat turn changed, with a diff per file, and its undo. */
export const getTurnChanges = query(
  (sessionId: string, turnId: string) =>
    ok(api.sessions[':id'].turns[':turnId'].changes.$get({ param: { id: sessionId, turnId } })),
  'turn-changes',
)

export type TurnChangesView = Awaited<ReturnType<typeof getTurnChanges>>

/** Undoes the turn once; its changes are read again (each file's outcome is kept with it). */
export async function undoTurn(sessionId: string, turnId: string) {
  const result = await ok(
    api.sessions[':id'].turns[':turnId'].undo.$post({ param: { id: sessionId, turnId } }),
  )
  await revalidate(getTurnChanges.keyFor(sessionId, turnId))
  return result
}
