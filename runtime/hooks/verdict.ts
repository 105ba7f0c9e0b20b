import type { HookFailure } from '../../db/hook-enums.ts'

/**
 * Reads a hook's answer. Only a JSON object whose `decision` is `allow` or `deny` is a verdict
 * (unknown fields are ignored, so a hook written for a later version still works); anything else
 * is a failure with its kind, and on a blocking event a failure denies. The texts are bounded.
 * `ask` (hand the decision to the owner: compute-host/hooks/tool-gate.ts) is a verdict only where the caller
 * can ask (PreToolUse); elsewhere it is invalid output, so it denies like any failure. An `ask`
 * may say how long to wait, `timeoutSeconds`, kept within ASK_TIMEOUT_BOUNDS_S.
 */
export const MAX_OUTPUT_BYTES = 64 * 1024
const MAX_REASON = 2_048
const MAX_CONTEXT = 8_192
/** How long an `ask` waits for the owner: the default and the bounds a hook may choose within. */
export const ASK_TIMEOUT_DEFAULT_S = 300
export const ASK_TIMEOUT_BOUNDS_S = { min: 1, max: 3_600 } as const

export type Verdict =
  | {
      ok: true
      decision: 'allow' | 'deny' | 'ask'
      reason: string | null
      context: string | null
      /** An `ask`'s wait, in seconds, within the bounds. */
      askTimeoutS?: number
    }
  | { ok: false; failure: HookFailure; reason: string }

export function readVerdict(output: string, options: { canAsk?: boolean } = {}): Verdict {
  if (new TextEncoder().encode(output).length > MAX_OUTPUT_BYTES)
    return {
      ok: false,
      failure: 'oversize',
      reason: `the hook answered more than ${MAX_OUTPUT_BYTES} bytes`,
    }
  if (!output.trim())
    return { ok: false, failure: 'empty_output', reason: 'the hook answered nothing' }
  let parsed: unknown
  try {
    parsed = JSON.parse(output)
  } catch {
    return { ok: false, failure: 'invalid_output', reason: 'the hook did not answer JSON' }
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    return { ok: false, failure: 'invalid_output', reason: 'the hook did not answer a JSON object' }
  const { decision, reason, additionalContext, timeoutSeconds } = parsed as Record<string, unknown>
  const asks = decision === 'ask' && options.canAsk === true
  if (decision !== 'allow' && decision !== 'deny' && !asks)
    return {
      ok: false,
      failure: 'invalid_output',
      reason:
        decision === 'ask'
          ? 'the hook answered ask, which only a PreToolUse hook may answer'
          : 'the hook answered no decision of allow or deny',
    }
  const text = (v: unknown, max: number) =>
    typeof v === 'string' && v.trim() ? v.slice(0, max) : null
  const wait =
    typeof timeoutSeconds === 'number' && Number.isFinite(timeoutSeconds)
      ? Math.min(ASK_TIMEOUT_BOUNDS_S.max, Math.max(ASK_TIMEOUT_BOUNDS_S.min, timeoutSeconds))
      : ASK_TIMEOUT_DEFAULT_S
  return {
    ok: true,
    decision: decision as 'allow' | 'deny' | 'ask',
    reason: text(reason, MAX_REASON),
    context: text(additionalContext, MAX_CONTEXT),
    ...(asks && { askTimeoutS: wait }),
  }
}

/** Whether a tool matcher (`*`, `name` or `prefix*`) picks this tool. */
export function matches(matcher: string, toolName: string | undefined): boolean {
  if (matcher === '*') return true
  if (toolName === undefined) return false
  return matcher.endsWith('*') ? toolName.startsWith(matcher.slice(0, -1)) : toolName === matcher
}
