import { z } from 'zod'
import { idSchema, SessionId } from '../ids.ts'

/**
 * Per-turn undo (B3): what a chat turn changed in its repository, and the undo of it. A turn's
 * change set holds exactly the files whose content (or mode, or kind) differs between the moment
 * before the turn's first write and the turn's end, whether the file tools or the shell wrote them.
 */

export const TurnId = idSchema('turn')
export const TurnParams = z.strictObject({ id: SessionId, turnId: TurnId })
export type TurnParams = z.infer<typeof TurnParams>

/** What the host is asked for: the turn of this session. */
export const TurnRef = z.strictObject({ sessionId: SessionId, turnId: TurnId })
export type TurnRef = z.infer<typeof TurnRef>

export const FileChangeKind = z.enum(['modified', 'created', 'deleted'])
export type FileChangeKind = z.infer<typeof FileChangeKind>

/**
 * `none`: the turn wrote nothing (or is unknown); `recording`: it is still running; `recorded`:
 * it can be undone; `failed`: its after-state could not be recorded, so it cannot be undone;
 * `undone`: it was undone (see `undo`).
 */
export const TurnChangeState = z.enum([
  'none',
  'recording',
  'recorded',
  'failed',
  'undoing',
  'undone',
])
export type TurnChangeState = z.infer<typeof TurnChangeState>

/** The most files one answer lists, and the most characters of one file's diff. */
export const MAX_LISTED_FILES = 200
export const MAX_DIFF_CHARS = 64_000

export const TurnFileChange = z.object({
  path: z.string(),
  change: FileChangeKind,
  /** A unified diff of before → after; null when it cannot be shown (`note` says why). */
  diff: z.string().nullable(),
  note: z.string().optional(),
  /** Whether undo would restore this file now; `reason` says why not. */
  undoable: z.boolean(),
  reason: z.string().optional(),
  /**
   * Set when the file makes git or the owner's tools run code later (a `.gitattributes`, a git
   * hook, an `.envrc` …): what would run it, in words. The agent's shell can write these files
   * even where the file tools may not, so the owner reviews them before committing.
   */
  runsCodeLater: z.string().optional(),
})
export type TurnFileChange = z.infer<typeof TurnFileChange>

export const UndoOutcome = z.enum(['restored', 'removed', 'refused'])
export type UndoOutcome = z.infer<typeof UndoOutcome>

export const UndoFileResult = z.object({
  path: z.string(),
  outcome: UndoOutcome,
  reason: z.string().optional(),
})
export type UndoFileResult = z.infer<typeof UndoFileResult>

export const TurnChanges = z.object({
  sessionId: z.string(),
  turnId: z.string(),
  state: TurnChangeState,
  files: z.array(TurnFileChange),
  /** More files changed than are listed (`total` counts them all). */
  truncated: z.boolean(),
  total: z.number().int(),
  /** What the snapshot could not keep, in words (files over the size caps, a truncated walk). */
  limits: z.array(z.string()),
  /** Every changed file, listed or not, that runs code later (`runsCodeLater` of a file). */
  runsCodeLater: z.array(z.string()),
  error: z.string().optional(),
  undo: z.array(UndoFileResult).optional(),
})
export type TurnChanges = z.infer<typeof TurnChanges>

export const UndoResult = z.object({
  sessionId: z.string(),
  turnId: z.string(),
  files: z.array(UndoFileResult),
})
export type UndoResult = z.infer<typeof UndoResult>
