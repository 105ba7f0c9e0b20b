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
import {
  captureFile,
  readTree,
  repositoryPath,
  sameState,
  walked,
  type Captured,
} from './tree-state.ts'

/** The tools that write the working tree: before the first of them in a turn, it is snapshotted. */
export const WRITING_TOOLS = new Set(['workspace-write', 'workspace-edit', 'shell'])

// Recordings of ended turns still being written, by turn id: the changes and undo routes wait
// for a turn's recording before they read it (the run never waits for an observer).
const pending = new Map<string, Promise<void>>()

/** Waits until the turn's change set is recorded, when it is being recorded right now. */
export async function recordingOf(turnId: string): Promise<void> {
  await pending.get(turnId)
}

type Snapshot = {
  root: string
  before: Map<string, FileState>
  truncated?: string
  /** Paths the file tools wrote outside the walk (a skipped folder): captured one by one. */
  extras: Map<string, FileState | null>
}

/**
 * Per-turn undo's recorder (B3) for one chat turn: a tool hook that, before the turn's first
 * write (file tools or shell), reads the working tree's state and keeps its contents in
 * popagent's own store (runtime/turn-changes, never the user's index, stash or refs), and a run
 * observer that, at the run's end, records what differs — the turn's change set. A snapshot
 * that fails does not stop the turn: the turn is then marked as one that cannot be undone.
 */
export function turnUndoRecorder(
  deps: { db: Db; workspaceRoot: string; log: Logger },
  turn: { turnId: string; sessionId: string; workspaceId: string },
): { toolHooks: AgentToolHooks; observer: RunObserver } {
  let snapshot: Promise<Snapshot | undefined> | undefined
  const take = async (): Promise<Snapshot | undefined> => {
    const workspace = await Workspaces.get(deps.db, turn.workspaceId)
    const repository = await resolveInside(deps.workspaceRoot, workspace.path)
    const root = join(deps.workspaceRoot, repository)
    await TurnChanges.startTurn(deps.db, { ...turn, repository })
    try {
      const tree = await readTree(root)
      await TurnChanges.keepBlobs(deps.db, blobsOf(tree.files.values()))
      const before = new Map([...tree.files].map(([path, c]) => [path, c.state]))
      return {
        root,
        before,
        extras: new Map(),
        ...(tree.truncated && { truncated: tree.truncated }),
      }
    } catch (error) {
      await TurnChanges.failTurn(
        deps.db,
        turn.turnId,
        `the snapshot failed: ${errorMessage(error)}`,
      )
      throw error
    }
  }
  const ensure = () =>
    (snapshot ??= take().catch((error: unknown) => {
      deps.log.warn('turn snapshot failed; this turn cannot be undone', {
        turnId: turn.turnId,
        error: errorMessage(error),
      })
      return undefined
    }))

  const finish = async () => {
    const taken = await snapshot
    if (!taken) return
    try {
      const after = await readTree(taken.root)
      const changes: StoredChange[] = []
      const kept: Captured[] = []
      const paths = new Set([...taken.before.keys(), ...after.files.keys()])
      for (const path of [...paths].sort()) {
        const before = taken.before.get(path) ?? null
        // Past a truncated snapshot, a file's before-state is unknown: not claimed as created.
        if (!before && taken.truncated) continue
        const now = after.files.get(path)
        if (sameState(before, now?.state ?? null)) continue
        changes.push({ path, before, after: now?.state ?? null })
        if (now) kept.push(now)
      }
      for (const [path, before] of taken.extras) {
        const now = await captureFile(taken.root, path)
        if (sameState(before, now?.state ?? null)) continue
        changes.push({ path, before, after: now?.state ?? null })
        if (now) kept.push(now)
      }
      await TurnChanges.keepBlobs(deps.db, blobsOf(kept))
      await TurnChanges.recordTurn(deps.db, turn.turnId, changes, {
        ...(taken.truncated && { truncated: taken.truncated }),
      })
    } catch (error) {
      deps.log.warn('turn changes could not be recorded', {
        turnId: turn.turnId,
        error: errorMessage(error),
      })
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
        const taken = await ensure()
        // A file tool writing where the walk does not look: that one file's before-state.
        const path = taken && repositoryPath(taken.root, (input as { path?: unknown })?.path)
        if (taken && path && !walked(path) && !taken.extras.has(path)) {
          const captured = await captureFile(taken.root, path).catch(() => null)
          if (captured) await TurnChanges.keepBlobs(deps.db, blobsOf([captured]))
          taken.extras.set(path, captured?.state ?? null)
        }
        return undefined
      },
    }),
    observer: (event) => {
      if (event.type !== 'run-end' || !snapshot) return
      const done = finish().finally(() => pending.delete(turn.turnId))
      pending.set(turn.turnId, done)
      return done
    },
  }
}

function blobsOf(captured: Iterable<Captured>) {
  const blobs: Array<{ hash: string; size: number; content: string }> = []
  for (const c of captured) {
    if (c.state.kind === 'file' && c.content) {
      blobs.push({ hash: c.state.hash, size: c.state.size, content: c.content.toString('base64') })
    }
  }
  return blobs
}
