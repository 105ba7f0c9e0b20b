import { ApiError } from '../api.ts'
import {
  deleteSession,
  patchSession,
  refreshSession,
  saveMessages,
  type SessionView,
} from '../queries/sessions.ts'
import { withoutExchange } from './messages.ts'

/**
 * What the chat page does to the session it shows: rename, archive or restore, delete, and remove
 * one exchange. Every action goes through the page's `run`, so its error shows in one place.
 */
export function createSessionActions(page: {
  current: () => SessionView | undefined
  run: <T>(work: () => Promise<T>) => Promise<T | undefined>
  onArchived: () => void
  onDeleted: () => void
  setNotice: (text: string | undefined) => void
  setError: (error: unknown) => void
}) {
  return {
    async rename(title: string) {
      const s = page.current()
      return !!s && !!(await page.run(() => patchSession(s.id, { title })))
    },

    async archive(archivedNow: boolean) {
      const s = page.current()
      if (!s) return
      const saved = await page.run(() => patchSession(s.id, { archived: archivedNow }))
      if (saved && archivedNow) page.onArchived()
    },

    async remove() {
      const s = page.current()
      if (!s) return
      if (await page.run(() => deleteSession(s.id))) page.onDeleted()
    },

    /**
     * Removes an exchange from the transcript with a save under the revision this page saw. When
     * the session changed meanwhile (another tab, a turn from the CLI) the server answers 409: the
     * page reloads the session and says so, and the draft in the message box stays as it is.
     * Resolves true when the exchange is gone.
     */
    async removeExchange(userMessageId: string): Promise<boolean> {
      const s = page.current()
      if (!s) return false
      page.setNotice(undefined)
      page.setError(undefined)
      try {
        await saveMessages(s.id, {
          revision: s.revision,
          messages: withoutExchange(s.messages, userMessageId),
        })
        return true
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 409)) {
          page.setError(err)
          return false
        }
        await refreshSession(s.id)
        page.setNotice(
          'This session changed elsewhere, so it was reloaded and nothing was removed. Your draft is kept.',
        )
        return false
      }
    },
  }
}
