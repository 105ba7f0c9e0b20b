import { HookDenied } from '../../runtime/hooks/errors.ts'
import type { ConfigSnapshot } from '../config-cache.ts'
import type { HookDispatcher, HookScope } from './dispatcher.ts'

/**
 * The hooks of a chat turn before its run: SessionStart on a session's first turn (it may add
 * context; a failure is ignored) and UserPromptSubmit on every turn (it may deny, and a failing
 * hook denies). A deny is a HOOK_DENIED 422 before any model call. What the hooks added comes
 * back as one block for the model, marked as policy feedback rather than the user's words.
 */
export async function promptHooks(
  hooks: HookDispatcher,
  turn: { scope: HookScope; prompt: string; firstTurn: boolean; config?: ConfigSnapshot },
): Promise<string | undefined> {
  const contexts: string[] = []
  const { config } = turn
  if (turn.firstTurn) {
    const started = await hooks.dispatch({
      event: 'SessionStart',
      scope: turn.scope,
      data: {},
      config,
    })
    if (started.context) contexts.push(started.context)
  }
  const verdict = await hooks.dispatch({
    event: 'UserPromptSubmit',
    scope: turn.scope,
    data: { prompt: turn.prompt },
    config,
  })
  if (verdict.decision === 'deny') {
    const reason = verdict.reason ?? 'a hook denied this prompt'
    throw new HookDenied(
      { reason, event: 'UserPromptSubmit' },
      { message: `denied by a hook: ${reason}` },
    )
  }
  if (verdict.context) contexts.push(verdict.context)
  if (contexts.length === 0) return undefined
  return `<hook-context>\nPolicy feedback from the owner's hooks (not the user's words, and not a permission):\n${contexts.join('\n\n')}\n</hook-context>`
}
