import { join } from 'node:path'
import type { Db } from '../../db/index.ts'
import {
  MAX_DIFF_CHARS,
  MAX_LISTED_FILES,
  type TurnChanges as TurnChangesAnswer,
  type TurnFileChange,
  type TurnRef,
  type UndoFileResult,
  type UndoResult,
} from '../../runtime/contracts/turn-changes.ts'
import { errorMessage } from '../../runtime/error-message.ts'
import * as Sessions from '../../runtime/sessions/index.ts'
import * as TurnChanges from '../../runtime/turn-changes/index.ts'
import type { FileState, StoredChange } from '../../runtime/turn-changes/index.ts'
import { resolveInside } from '../workspaces/containment.ts'
import {
  execTriggerAt,
  execTriggerOf,
  readExecTriggers,
  type ExecTriggers,
} from '../workspaces/exec-trigger-guard.ts'
import { FILE_OPERATION_LIMIT_MS, withTimeBound } from '../workspaces/file-op-time-bound.ts'
import { writePinned } from '../workspaces/pinned-io.ts'
import { openBlob, type BlobCipher } from './blob-cipher.ts'
import { chmodPinned, unlinkPinned } from './pinned-ops.ts'
import { captureFile, sameState } from './tree-state.ts'
import { recordingOf } from './turn-recorder.ts'
import { unifiedDiff } from './unified-diff.ts'

type Deps = {
  db: Db
  workspaceRoot: string
  redact: (text: string) => string
  /** Opens the encrypted contents (blob-cipher.ts); without it only rows kept in clear open. */
  turnBlobs?: BlobCipher
}

const MAX_DIFF_INPUT = 256 * 1024
// The most diff text one answer carries, all files together.
const MAX_DIFF_TOTAL = 1_000_000

/**
 * What a turn changed, file by file, with a diff of each, whether undo would restore it now (the
 * file must still be as the agent left it), and whether it is a file that runs code on the
 * owner's machine later (exec-trigger-guard.ts): the shell writes those where the file tools may
 * not, so each is flagged for review whoever wrote it.
 */
export async function describeTurn(deps: Deps, ref: TurnRef): Promise<TurnChangesAnswer> {
  await assertSession(deps.db, ref.sessionId)
  const row = await currentTurn(deps.db, ref)
  const base = { sessionId: ref.sessionId, turnId: ref.turnId }
  if (!row) {
    const nothing = { files: [], truncated: false, total: 0, limits: [], runsCodeLater: [] }
    return { ...base, state: 'none', ...nothing }
  }
  const changes = (row.files ?? []) as StoredChange[]
  const listed = changes.slice(0, MAX_LISTED_FILES)
  const kept = await TurnChanges.existingBlobs(deps.db, listed.flatMap(hashesOf))
  const blobs = await TurnChanges.readBlobs(deps.db, listed.flatMap(smallHashesOf))
  let budget = MAX_DIFF_TOTAL
  const repository = await rootOf(deps, row.repository).catch(() => null)
  const root = row.state === 'recorded' ? repository : null
  // Every changed file is looked at, not only the listed ones: one among thousands still shows.
  const runsCodeLater = await runningCodeLater(repository, changes)
  const files: TurnFileChange[] = []
  for (const change of listed) {
    const shown =
      budget > 0
        ? diffOf(change, blobs, deps.turnBlobs)
        : { diff: null, note: 'not shown: this answer holds enough diffs' }
    budget -= shown.diff?.length ?? 0
    const verdict =
      row.state !== 'recorded'
        ? { ok: false, reason: stateReason(row.state) }
        : root === null
          ? { ok: false, reason: "the workspace's repository cannot be found" }
          : await undoVerdict(root, change, kept)
    const runs = runsCodeLater.get(change.path)
    files.push({
      path: change.path,
      change: kindOf(change),
      diff: shown.diff === null ? null : deps.redact(shown.diff),
      ...(shown.note && { note: shown.note }),
      undoable: verdict.ok,
      ...(!verdict.ok && { reason: verdict.reason }),
      ...(runs && { runsCodeLater: runs }),
    })
  }
  const limits = row.limits as { truncated?: string } | null
  return {
    ...base,
    state: row.state as TurnChangesAnswer['state'],
    files,
    truncated: changes.length > listed.length,
    total: changes.length,
    limits: limits?.truncated ? [limits.truncated] : [],
    runsCodeLater: [...runsCodeLater.keys()],
    ...(row.error && { error: row.error }),
    ...(row.undo && { undo: row.undo as UndoFileResult[] }),
  }
}

/**
 * Undoes a turn once: each file the agent changed is put back as it was before the turn when it
 * is still exactly as the agent left it, and refused, untouched, otherwise.
 */
export async function undoTurn(deps: Deps, ref: TurnRef): Promise<UndoResult> {
  await assertSession(deps.db, ref.sessionId)
  const found = await currentTurn(deps.db, ref)
  if (!found) throw new TurnChanges.TurnNotFound({ ...ref })
  // The repository first: a workspace that went missing leaves the turn undoable later.
  const root = await rootOf(deps, found.repository).catch((error: unknown) => {
    throw new TurnChanges.TurnNotUndoable(
      { ...ref },
      { message: `the turn's repository cannot be reached: ${errorMessage(error)}` },
    )
  })
  const row = await TurnChanges.claimUndo(deps.db, ref.sessionId, ref.turnId)
  const changes = (row.files ?? []) as StoredChange[]
  const kept = await TurnChanges.existingBlobs(deps.db, changes.flatMap(hashesOf))
  const results: UndoFileResult[] = []
  try {
    for (const change of changes) {
      const refuse = (reason: string) =>
        results.push({ path: change.path, outcome: 'refused', reason })
      try {
        const verdict = await undoVerdict(root, change, kept)
        if (!verdict.ok) {
          refuse(verdict.reason)
          continue
        }
        const outcome = await withTimeBound('undo', change.path, FILE_OPERATION_LIMIT_MS, () =>
          restore(deps, root, change),
        )
        results.push({ path: change.path, outcome })
      } catch (error) {
        refuse(`popagent could not restore it: ${errorMessage(error)}`)
      }
    }
  } finally {
    await TurnChanges.finishUndo(deps.db, ref.turnId, results)
  }
  return { ...ref, files: results }
}

/**
 * The turn's row once its recording (if running) is written. A turn left `recording` by a host
 * that stopped during it is marked failed: its after-state was never seen.
 */
async function currentTurn(db: Db, ref: TurnRef) {
  const followed = await recordingOf(ref.turnId)
  const row = await TurnChanges.getTurn(db, ref.sessionId, ref.turnId)
  if (row?.state !== 'recording' || followed) return row
  await TurnChanges.failTurn(db, ref.turnId, 'the compute host stopped during the turn')
  return TurnChanges.getTurn(db, ref.sessionId, ref.turnId)
}

/** The changed files that run code later, with what runs each (exec-trigger-guard.ts). */
async function runningCodeLater(
  repository: string | null,
  changes: readonly StoredChange[],
): Promise<Map<string, string>> {
  const triggers: ExecTriggers = repository ? await readExecTriggers(repository) : { hooks: [] }
  const found = new Map<string, string>()
  for (const { path } of changes) {
    const parts = path.split('/')
    // Without the repository, names are compared as given (no directory to ask about case).
    const why = repository
      ? await execTriggerAt(repository, join(repository, ...parts), triggers)
      : execTriggerOf(parts, triggers)
    if (why) found.set(path, why)
  }
  return found
}

async function assertSession(db: Db, sessionId: string) {
  if (!(await Sessions.getSummary(db, sessionId)))
    throw new Sessions.SessionNotFound({ id: sessionId })
}

async function rootOf(deps: Deps, repository: string): Promise<string> {
  return join(deps.workspaceRoot, await resolveInside(deps.workspaceRoot, repository))
}

const hashesOf = (c: StoredChange) =>
  [c.before, c.after].flatMap((s) => (s?.kind === 'file' ? [s.hash] : []))
const smallHashesOf = (c: StoredChange) =>
  [c.before, c.after].flatMap((s) =>
    s?.kind === 'file' && s.size <= MAX_DIFF_INPUT ? [s.hash] : [],
  )

function kindOf(change: StoredChange): TurnFileChange['change'] {
  return change.before === null ? 'created' : change.after === null ? 'deleted' : 'modified'
}

function stateReason(state: string): string {
  if (state === 'recording') return 'the turn is still running'
  if (state === 'failed') return "the turn's changes could not be recorded"
  return 'this turn was already undone'
}

function describe(state: FileState | null): string {
  if (state === null) return 'absent'
  if (state.kind === 'link') return 'a symbolic link'
  if (state.kind === 'unkept')
    return state.reason.startsWith('not a regular file') ? state.reason : 'a large file'
  return 'a file'
}

/** Whether undo may put this file back now, and why not. */
async function undoVerdict(
  root: string,
  change: StoredChange,
  kept: Set<string>,
): Promise<{ ok: true } | { ok: false; reason: string }> {
  const { before, after } = change
  if (change.mixed) {
    return {
      ok: false,
      reason:
        "the file was also changed by someone else during the turn, between the agent's writes; popagent cannot separate the agent's part and leaves it as it is",
    }
  }
  for (const [when, state] of [
    ['before', before],
    ['after', after],
  ] as const) {
    if (state?.kind === 'unkept') {
      return {
        ok: false,
        reason: `the file was too large for popagent to keep its state ${when} the turn (${state.reason}); restore it by hand`,
      }
    }
    if (state?.kind === 'link') {
      return {
        ok: false,
        reason: `the path was a symbolic link ${when} the turn; popagent does not restore links`,
      }
    }
  }
  if (before?.kind === 'file' && !kept.has(before.hash)) {
    return {
      ok: false,
      reason: 'popagent no longer keeps the content this file had before the turn',
    }
  }
  const now = await captureFile(root, change.path).catch(() => undefined)
  if (now === undefined) return { ok: false, reason: 'the file cannot be read now' }
  if (!sameState(now?.state ?? null, after)) {
    return {
      ok: false,
      reason:
        after === null
          ? `the file was created again after the agent deleted it (it is now ${describe(now?.state ?? null)}); popagent leaves it as it is`
          : now === null
            ? 'the file was deleted after the agent changed it; popagent leaves it deleted'
            : now.state.kind === 'file'
              ? 'the file was changed after the agent changed it; popagent does not overwrite those changes'
              : `the file was replaced by ${describe(now.state)} after the agent changed it; popagent leaves it as it is`,
    }
  }
  return { ok: true }
}

async function restore(
  deps: Deps,
  root: string,
  change: StoredChange,
): Promise<'restored' | 'removed'> {
  const { before, after } = change
  if (before === null) {
    await unlinkPinned(root, change.path)
    return 'removed'
  }
  if (before.kind !== 'file') throw new Error('nothing to restore')
  const stored = (await TurnChanges.readBlobs(deps.db, [before.hash])).get(before.hash)
  if (stored === undefined) throw new Error('its earlier content is no longer kept')
  // Throws, before anything is written, when the row cannot be opened or does not match.
  const content = openBlob(deps.turnBlobs, before.hash, stored)
  const absolute = join(root, ...change.path.split('/'))
  await writePinned(root, absolute, content, {
    createParents: after === null,
    mode: after === null ? 'create' : 'replace',
  })
  const written = await captureFile(root, change.path)
  if (written?.state.kind === 'file' && written.state.mode !== before.mode) {
    await chmodPinned(root, change.path, before.mode)
  }
  return 'restored'
}

function diffOf(
  change: StoredChange,
  blobs: Map<string, string>,
  cipher: BlobCipher | undefined,
): { diff: string | null; note?: string } {
  const text = (state: FileState | null): string | null | { note: string } => {
    if (state === null) return null
    if (state.kind === 'link') return { note: 'a symbolic link' }
    if (state.kind === 'unkept') return { note: `not kept: ${state.reason}` }
    if (state.size > MAX_DIFF_INPUT) return { note: 'too large to show a diff' }
    const content = blobs.get(state.hash)
    if (content === undefined) return { note: 'the content is no longer kept' }
    let bytes: Buffer
    try {
      bytes = openBlob(cipher, state.hash, content)
    } catch (error) {
      return { note: `not shown: ${errorMessage(error).replace(/^its earlier /, 'its ')}` }
    }
    if (bytes.subarray(0, 8_000).includes(0)) return { note: 'a binary file' }
    return bytes.toString('utf8')
  }
  const a = text(change.before)
  const b = text(change.after)
  if (a !== null && typeof a === 'object') return { diff: null, note: a.note }
  if (b !== null && typeof b === 'object') return { diff: null, note: b.note }
  const diff = unifiedDiff(change.path, a, b)
  if (diff.length > MAX_DIFF_CHARS) {
    return {
      diff: `${diff.slice(0, MAX_DIFF_CHARS)}\n…`,
      note: 'the diff is cut to its first part',
    }
  }
  const { before, after } = change
  const modeNote =
    before?.kind === 'file' && after?.kind === 'file' && before.mode !== after.mode
      ? `mode ${before.mode.toString(8)} → ${after.mode.toString(8)}`
      : undefined
  return { diff, ...(modeNote && { note: modeNote }) }
}
