import type { Context } from 'hono'
import { openBrowserSessionOf } from '../runtime/browser/sessions.ts'
import * as Hooks from '../runtime/hooks/index.ts'
import type { AppEnv } from './env.ts'

/**
 * Runs the SessionEnd hooks (X3) of sessions about to be archived or deleted, on the compute
 * host, before the change, so a hook still finds the session, and closes their browser sessions
 * there. Only when such a hook or an open browser session exists: otherwise the session is
 * archived without asking the host. When one exists and the host cannot run
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
    // A session with an open browser session asks the host too: the host closes the browser.
    const browser = !hooks && (await openBrowserSessionOf(c.var.db, { chatSessionId: s.id }))
    if (!hooks && !browser) continue
    await c.var.host.sessionEnd({ sessionId: s.id, workspaceId: s.workspaceId, reason })
  }
}
