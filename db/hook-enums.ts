/**
 * The hook vocabulary, import-free so the schema, the contracts and the UI share one list.
 * Blocking events are the ones a hook can stop: there a hook that fails (times out, crashes,
 * answers garbage) denies, so a broken guard never lets work through.
 */
export const HOOK_EVENTS = [
  'SessionStart',
  'SessionEnd',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'TaskStart',
  'TaskStop',
] as const
export type HookEvent = (typeof HOOK_EVENTS)[number]

export const BLOCKING_HOOK_EVENTS: readonly HookEvent[] = [
  'UserPromptSubmit',
  'PreToolUse',
  'TaskStart',
]
/** Events whose hooks may add context for the model. */
export const CONTEXT_HOOK_EVENTS: readonly HookEvent[] = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
]

export const HOOK_KINDS = ['command', 'http'] as const
export type HookKind = (typeof HOOK_KINDS)[number]

/** `ask`: a PreToolUse hook handed the decision to the owner (an approval). */
export const HOOK_RUN_OUTCOMES = ['running', 'allow', 'deny', 'ask', 'failed'] as const
export type HookRunOutcome = (typeof HOOK_RUN_OUTCOMES)[number]

/** Why a hook run is not a verdict; on a blocking event each of these denies. */
export const HOOK_FAILURES = [
  'spawn_error',
  'timeout',
  'nonzero_exit',
  'signal',
  'empty_output',
  'invalid_output',
  'oversize',
  'http_status',
  'http_error',
  'sandbox_unavailable',
] as const
export type HookFailure = (typeof HOOK_FAILURES)[number]
