import type { HookFailure } from '../../db/hook-enums.ts'

/** What running one hook gave: an answer to read as a verdict, or a failure with its kind. */
export type HookOutcome =
  | { kind: 'answer'; output: string }
  | { kind: 'failed'; failure: HookFailure; reason: string; output?: string }
