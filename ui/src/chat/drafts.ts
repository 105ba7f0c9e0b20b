import { createSignal } from 'solid-js'

/** The draft of a chat not yet saved as a session (`/`). */
export const NEW_CHAT = ''

/**
 * What the owner has typed, per session: switching sessions keeps each one's unsent message.
 * The first message of a new chat is sent from the NEW_CHAT draft, which it empties. A signal
 * over a record rather than a store: the entry chunk loads this, and Solid's store stays out of it.
 */
export function createDrafts() {
  const [drafts, setDrafts] = createSignal<Record<string, string>>({})
  return {
    draft: (sessionId: string | undefined) => drafts()[sessionId ?? NEW_CHAT] ?? '',
    setDraft: (sessionId: string | undefined, text: string) =>
      setDrafts((all) => ({ ...all, [sessionId ?? NEW_CHAT]: text })),
  }
}
export type Drafts = ReturnType<typeof createDrafts>
