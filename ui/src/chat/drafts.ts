import { createStore } from 'solid-js/store'

/** The draft of a chat not yet saved as a session (`/`). */
export const NEW_CHAT = ''

/**
 * What the owner has typed, per session: switching sessions keeps each one's unsent message.
 * The first message of a new chat is sent from the NEW_CHAT draft, which it empties.
 */
export function createDrafts() {
  const [drafts, setDrafts] = createStore<Record<string, string>>({})
  return {
    draft: (sessionId: string | undefined) => drafts[sessionId ?? NEW_CHAT] ?? '',
    setDraft: (sessionId: string | undefined, text: string) =>
      setDrafts(sessionId ?? NEW_CHAT, text),
  }
}
export type Drafts = ReturnType<typeof createDrafts>
