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
 *
 * The message as the first try redacted it comes back at once (`redacted`), beside the claim in
 * flight, so a caller can start on it; `claiming` answers the message the claim kept, which is
 * another redaction only when the claim had to catch up with the vault.
 */
export function claimRedacted(
  deps: Pick<RunDeps, 'vault' | 'redactor'>,
  live: Pick<LiveTurns, 'claim'>,
  turn: { sessionId: string; workspaceId: string; turnId: string; message: ChatMessage },
): {
  redacted: ChatMessage
  claiming: Promise<{ claimed: ClaimedTurn; message: ChatMessage }>
} {
  const { vault } = deps
  // A try's secrets and the redaction made with them, read together (no await between); the
  // last try goes without the check.
  const redactedFor = (tries: number) => ({
    known: tries < CLAIM_TRIES ? vault?.known() : undefined,
    message: redactChunk(turn.message, deps.redactor),
  })
  const first = redactedFor(1)
  const claiming = async () => {
    for (let tries = 1, { known, message } = first; ; { known, message } = redactedFor(++tries)) {
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
  return { redacted: first.message, claiming: claiming() }
}
