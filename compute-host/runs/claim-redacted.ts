import type { ChatRequest } from '../../runtime/contracts/chat.ts'
import { TurnInProgress } from '../../runtime/sessions/errors.ts'
import type { ClaimedTurn, LiveTurns } from './live-turns.ts'
import type { RunDeps } from './prepare-run.ts'
import { redactChunk } from './stream-redaction.ts'

type ChatMessage = ChatRequest['message']

/** Claims past the vault's check: at most this many times (the last after catching up only). */
const CLAIM_TRIES = 3

/**
 * Chat ingress: a known secret the user pasted is redacted before hooks, title, brief or model
 * read the message, and before it is kept (the claim keeps it). The claim checks in its own
 * statement that the vault holds exactly the secrets this host redacted with, instead of this
 * host reading the vault's versions first (a round trip before every claim). When another host
 * stored, rotated or deleted one since, the claim is refused: this host catches up, redacts again
 * and claims again. A refusal the vault does not explain (a turn runs there, the session is not
 * open) stands. The last try claims right after catching up, without the check, as a write
 * racing every try is the owner's own and the catch-up just read the vault.
 */
export async function claimRedacted(
  deps: Pick<RunDeps, 'vault' | 'redactor'>,
  live: Pick<LiveTurns, 'claim'>,
  turn: { sessionId: string; workspaceId: string; turnId: string; message: ChatMessage },
): Promise<{ claimed: ClaimedTurn; message: ChatMessage }> {
  const { vault } = deps
  for (let tries = 1; ; tries++) {
    const known = tries < CLAIM_TRIES ? vault?.known() : undefined
    const message = redactChunk(turn.message, deps.redactor)
    try {
      const claimed = await live.claim({ ...turn, message, ...(known && { vaultKnown: known }) })
      return { claimed, message }
    } catch (error) {
      if (!known || !(error instanceof TurnInProgress)) throw error
      // Caught up with nothing new: the vault does not explain the refusal.
      if (!(await vault!.sync())) throw error
    }
  }
}
