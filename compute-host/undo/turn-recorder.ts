import { join } from 'node:path'
import type { Db } from '../../db/index.ts'
import { errorMessage } from '../../runtime/error-message.ts'
import * as TurnChanges from '../../runtime/turn-changes/index.ts'
import type { FileState, StoredChange } from '../../runtime/turn-changes/index.ts'
import * as Workspaces from '../../runtime/workspaces/index.ts'
import type { Logger } from '../log.ts'
import type { RunObserver } from '../runs/run-events.ts'
import type { AgentToolHooks } from '../runs/tool-hooks.ts'
import { resolveInside } from '../workspaces/containment.ts'
import type { BlobCipher } from './blob-cipher.ts'
import { byCodeUnits } from '../../runtime/code-unit-order.ts'
import {
  captureFile,
  readTree,
  repositoryPath,
  sameState,
  walked,
  type Captured,
  type TreeState,
} from './tree-state.ts'

/** The tools that write the working tree: before the first of them in a turn, it is snapshotted. */
export const WRITING_TOOLS = new Set(['workspace-write', 'workspace-edit', 'shell'])

// Recordings of ended turns still being written, by turn id: the changes and undo routes wait
// for a turn's recording before they read it (the run never waits for an observer).
const pending = new Map<string, Promise<void>>()

// Turns of this process whose changes are being followed (from the first write to the record).
const live = new Set<string>()

/**
 * Waits until the turn's change set is recorded, when it is being recorded right now; answers
 * whether the turn is still followed by this process (false for a turn a stopped host left).
 */
export async function recordingOf(turnId: string): Promise<boolean> {
  await pending.get(turnId)
  return live.has(turnId)
}

type Change = { before: FileState | null; after: FileState | null; mixed?: boolean }

type Tracking = {
  root: string
  /** The tree as last seen, before or after one of the agent's writing calls. */
  known: TreeState
  /** Paths the file tools wrote outside the walk (a skipped folder), with their last state. */
  extras: Map<string, FileState | null>
  /** The turn's change set so far: each path the agent's calls changed. */
  changes: Map<string, Change>
  /** Writing calls begun and not yet ended: what changes meanwhile is theirs. */
  inFlight: number
  truncated?: string
}

/**
 * Per-turn undo's recorder (B3) for one chat turn: a tool hook around every writing call (file
 * tools and shell). Before the turn's first write it reads the working tree and keeps its
 * contents in popagent's own store (runtime/turn-changes, never the user's index, stash or refs).
 * Around each writing call the tree is read again (unchanged files unread): what changed during
 * the call is the agent's, with its state right after the call as the agent's after-state; what
 * changed between the agent's calls (none in flight) is someone else's, and becomes the baseline of a file the
 * agent has not touched (a file the agent had changed and someone changed too is marked mixed,
 * and undo refuses it). So the change set is complete when the last writing call returns, and
 * the user's edits during or after the turn are never taken for the agent's. At the run's end
 * it is stored. A snapshot that fails does not stop the turn: the turn cannot be undone then.
 *
 * Kept contents are encrypted (blob-cipher.ts). Without the vault key nothing is kept and the
 * turn is recorded as failed: every install has a key (`popagent start` makes one, `popagent
 * host` requires one), so only a host started without one by code lands here, and a repository's
 * secrets must not reach the database in clear for it.
 */
export function turnUndoRecorder(
  deps: { db: Db; workspaceRoot: string; log: Logger; turnBlobs?: BlobCipher },
  turn: { turnId: string; sessionId: string; workspaceId: string },
): { toolHooks: AgentToolHooks; observer: RunObserver } {
  const cipher = deps.turnBlobs
  let tracking: Promise<Tracking | undefined> | undefined
  let broken: string | undefined
  // Writing calls are looked at one after another (parallel ones overlap; both are the agent's).
  let queue: Promise<unknown> = Promise.resolve()
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work)
    queue = next.catch(() => undefined)
    return next
  }

  const start = async (): Promise<Tracking | undefined> => {
    const workspace = await Workspaces.get(deps.db, turn.workspaceId)
    const repository = await resolveInside(deps.workspaceRoot, workspace.path)
    const root = join(deps.workspaceRoot, repository)
    live.add(turn.turnId)
    await TurnChanges.startTurn(deps.db, { ...turn, repository })
    if (!cipher) {
      throw new Error(
        'this host has no POPAGENT_SECRET_KEY to encrypt the contents undo keeps, so it keeps none',
      )
    }
    const known = await readTree(root)
    await TurnChanges.keepBlobs(deps.db, blobsOf(cipher, known.files.values()))
    forget(known)
    return {
      root,
      known,
      extras: new Map(),
      changes: new Map(),
      inFlight: 0,
      ...(known.truncated && { truncated: known.truncated }),
    }
  }
  const ensure = () =>
    (tracking ??= start().catch(async (error: unknown) => {
      broken = `the snapshot failed: ${errorMessage(error)}`
      deps.log.warn('turn snapshot failed; this turn cannot be undone', {
        turnId: turn.turnId,
        error: errorMessage(error),
      })
      // Recorded as failed, with why, when its row was written: never left looking unfinished.
      await TurnChanges.failTurn(deps.db, turn.turnId, broken).catch(() => undefined)
      return undefined
    }))

  /** Reads the tree again and folds what differs into the change set (`agent`: during a call). */
  const look = async (t: Tracking, agent: boolean) => {
    const now = await readTree(t.root, t.known)
    const kept: Captured[] = []
    const differs = (path: string, before: FileState | null, after: Captured | null) => {
      if (sameState(before, after?.state ?? null)) return
      if (after) kept.push(after)
      const change = t.changes.get(path)
      if (agent) {
        t.changes.set(path, { ...(change ?? { before }), after: after?.state ?? null })
      } else if (change) {
        change.mixed = true
      }
    }
    const paths = new Set([...t.known.files.keys(), ...now.files.keys()])
    for (const path of paths) {
      const before = t.known.files.get(path)?.state ?? null
      // Past a truncated snapshot, a file's earlier state is unknown: never claimed.
      if (!t.known.files.has(path) && t.truncated) continue
      differs(path, before, now.files.get(path) ?? null)
    }
    for (const [path, before] of t.extras) {
      const captured = await captureFile(t.root, path)
      differs(path, before, captured)
      t.extras.set(path, captured?.state ?? null)
    }
    await TurnChanges.keepBlobs(deps.db, blobsOf(cipher, kept))
    forget(now)
    t.known = now
  }

  const guarded = async (work: (t: Tracking) => Promise<void>) => {
    const t = await ensure()
    if (!t || broken) return
    await serial(() => work(t)).catch((error: unknown) => {
      broken = `the turn's changes could not be followed: ${errorMessage(error)}`
      deps.log.warn('turn changes could not be followed', { turnId: turn.turnId, error: broken })
    })
  }

  const finish = async () => {
    const t = await tracking
    if (!t) return
    try {
      if (broken) throw new Error(broken)
      const changes: StoredChange[] = [...t.changes]
        .filter(([, c]) => !sameState(c.before, c.after))
        .sort(([a], [b]) => byCodeUnits(a, b))
        .map(([path, c]) => ({ path, ...c }))
      await TurnChanges.recordTurn(deps.db, turn.turnId, changes, {
        ...(t.truncated && { truncated: t.truncated }),
      })
    } catch (error) {
      await TurnChanges.failTurn(deps.db, turn.turnId, errorMessage(error))
    }
    await TurnChanges.collectGarbage(deps.db).catch((error: unknown) =>
      deps.log.warn('turn store cleanup failed', { error: errorMessage(error) }),
    )
  }

  return {
    toolHooks: () => ({
      beforeToolCall: async ({ toolName, input }) => {
        if (!WRITING_TOOLS.has(toolName)) return undefined
        await guarded(async (t) => {
          // A file tool writing where the walk does not look: that one file's state.
          const path = repositoryPath(t.root, (input as { path?: unknown })?.path)
          if (path && !walked(path) && !t.extras.has(path)) {
            const captured = await captureFile(t.root, path).catch(() => null)
            if (captured) await TurnChanges.keepBlobs(deps.db, blobsOf(cipher, [captured]))
            t.extras.set(path, captured?.state ?? null)
          }
          await look(t, t.inFlight > 0)
          t.inFlight++
        })
        return undefined
      },
      afterToolCall: async ({ toolName }) => {
        if (!WRITING_TOOLS.has(toolName)) return
        await guarded(async (t) => {
          await look(t, true)
          t.inFlight = Math.max(0, t.inFlight - 1)
        })
      },
    }),
    observer: (event) => {
      if (event.type !== 'run-end' || !tracking) return
      const done = finish().finally(() => {
        pending.delete(turn.turnId)
        live.delete(turn.turnId)
      })
      pending.set(turn.turnId, done)
      return done
    },
  }
}

/** Contents are in the store once kept; the turn holds hashes only. */
function forget(tree: TreeState) {
  for (const captured of tree.files.values()) delete captured.content
}

/** Encrypted, bound to their hashes: a repository's secrets never reach the store in clear. */
function blobsOf(cipher: BlobCipher | undefined, captured: Iterable<Captured>) {
  // Never reached without one (the snapshot refuses first); never a plain row if it were.
  if (!cipher) throw new Error('no key to encrypt the contents undo keeps')
  const blobs: Array<{ hash: string; size: number; content: string }> = []
  for (const c of captured) {
    if (c.state.kind === 'file' && c.content) {
      const { hash, size } = c.state
      blobs.push({ hash, size, content: cipher.seal(hash, c.content) })
    }
  }
  return blobs
}
