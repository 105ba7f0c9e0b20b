import type { HookFailure } from '../../db/hook-enums.ts'

/**
 * Reads a hook's answer. Only a JSON object whose `decision` is `allow` or `deny` is a verdict
 * (unknown fields are ignored, so a hook written for a later version still works); anything else
 * is a failure with its kind, and on a blocking event a failure denies. The texts are bounded.
 */
export const MAX_OUTPUT_BYTES = 64 * 1024
const MAX_REASON = 2_048
const MAX_CONTEXT = 8_192

export type Verdict =
  | { ok: true; decision: 'allow' | 'deny'; reason: string | null; context: string | null }
  | { ok: false; failure: HookFailure; reason: string }

export function readVerdict(output: string): Verdict {
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
  const { decision, reason, additionalContext } = parsed as Record<string, unknown>
  if (decision !== 'allow' && decision !== 'deny')
    return {
      ok: false,
      failure: 'invalid_output',
      reason: 'the hook answered no decision of allow or deny',
    }
  const text = (v: unknown, max: number) =>
    typeof v === 'string' && v.trim() ? v.slice(0, max) : null
  return {
    ok: true,
    decision,
    reason: text(reason, MAX_REASON),
    context: text(additionalContext, MAX_CONTEXT),
  }
}

/** Whether a tool matcher (`*`, `name` or `prefix*`) picks this tool. */
export function matches(matcher: string, toolName: string | undefined): boolean {
  if (matcher === '*') return true
  if (toolName === undefined) return false
  return matcher.endsWith('*') ? toolName.startsWith(matcher.slice(0, -1)) : toolName === matcher
}
