/**
 * How the client learns that a finished turn is saved, and gets the saved session to show in place
 * of the live copy. No Solid, no DOM: Node imports this file in test/ui-chat-settle.test.ts.
 *
 * A turn the host saved ends its stream with `savedRevision` in the reply's metadata: one fetch
 * of the session answers. An aborted or failed turn carries none (the host saves it a moment after
 * its stream ends, or not at all), so the session is read until it holds the user's message, for
 * at most `attempts` tries.
 */
export type SavedSession = { revision: number; messages: { id: string }[] }

export async function settleTurn<S extends SavedSession>(turn: {
  savedRevision: number | undefined
  userMessageId: string
  fetchSession: () => Promise<S>
  sleep?: (ms: number) => Promise<void>
  attempts?: number
}): Promise<S | undefined> {
  const holdsTurn = (s: S | undefined) =>
    !!s &&
    (turn.savedRevision !== undefined
      ? s.revision >= turn.savedRevision
      : s.messages.some((m) => m.id === turn.userMessageId))
  const sleep = turn.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)))
  const attempts = turn.savedRevision !== undefined ? 1 : (turn.attempts ?? 50)
  for (let i = 0; i < attempts; i++) {
    const session = await turn.fetchSession().catch(() => undefined)
    if (holdsTurn(session)) return session
    if (i < attempts - 1) await sleep(100)
  }
  return undefined
}
