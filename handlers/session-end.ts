import type { Context } from 'hono'
import { closeBrowserSession, openBrowserSessionOf } from '../runtime/browser/sessions.ts'
import * as Hooks from '../runtime/hooks/index.ts'
import type { AppEnv } from './env.ts'

/**
 * Runs the SessionEnd hooks (X3) of sessions about to be archived or deleted, on the compute
 * host, before the change, so a hook still finds the session, and closes their browser sessions
 * there. Only when such a hook or an open browser session exists: otherwise the session is
 * archived without asking the host. When a hook exists and the host cannot run
 * it, the change is refused with the host's error rather than made with its hook skipped.
 */
export async function endSessions(
  c: Context<AppEnv>,
  sessions: { id: string; workspaceId: string }[],
  reason: 'archived' | 'deleted',
): Promise<void> {
  if (sessions.length === 0) return
  const hooks = (await Hooks.enabledFor(c.var.db, 'SessionEnd')).length > 0
  for (const s of sessions) {
    const end = () => c.var.host.sessionEnd({ sessionId: s.id, workspaceId: s.workspaceId, reason })
    if (hooks) {
      await end()
      continue
    }
    // No hook to run, but an open browser session: the host closes its browser. A host that
    // cannot be reached holds no live browser for it, so its row is closed here instead and the
    // session is archived all the same.
    const browser = await openBrowserSessionOf(c.var.db, { chatSessionId: s.id })
    if (!browser) continue
    await end().catch(() =>
      closeBrowserSession(c.var.db, browser.id, `the chat session was ${reason}`),
    )
  }
}
