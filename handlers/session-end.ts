import type { Context } from 'hono'
import * as Hooks from '../runtime/hooks/index.ts'
import type { AppEnv } from './env.ts'

/**
 * Runs the SessionEnd hooks (X3) of sessions about to be archived or deleted, on the compute
 * host, before the change, so a hook still finds the session. Only when such a hook exists: an
 * install without one archives without asking the host. When one exists and the host cannot run
 * it, the change is refused with the host's error rather than made with its hook skipped.
 */
export async function endSessions(
  c: Context<AppEnv>,
  sessions: { id: string; workspaceId: string }[],
  reason: 'archived' | 'deleted',
): Promise<void> {
  if (sessions.length === 0) return
  if ((await Hooks.enabledFor(c.var.db, 'SessionEnd')).length === 0) return
  for (const s of sessions) {
    await c.var.host.sessionEnd({ sessionId: s.id, workspaceId: s.workspaceId, reason })
  }
}
