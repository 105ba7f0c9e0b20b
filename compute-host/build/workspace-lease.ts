import { BuildMaintenanceRunning } from '../../runtime/build/maintenance.ts'

/**
 * The process-local half of the autonomous lease (the database half is the one-autonomous index):
 * the workspaces a `build-maintenance` attempt on this host is working in right now. A chat turn
 * in such a workspace is refused (409 BUILD_MAINTENANCE_RUNNING), and a maintenance attempt does
 * not start beside a live chat turn (maintenance.ts reads `popagent_live_turns`), so interactive
 * and autonomous work never edit the same checkout at once. The two sides check in opposite
 * orders — the attempt holds, then looks for live turns; a turn claims its session, then looks
 * for a hold — so at least one of two racing starts sees the other and gives way.
 */
const held = new Map<string, number>()

/** Holds `workspaceId` for an attempt; the answer releases it (once). */
export function holdWorkspace(workspaceId: string): () => void {
  held.set(workspaceId, (held.get(workspaceId) ?? 0) + 1)
  let released = false
  return () => {
    if (released) return
    released = true
    const left = (held.get(workspaceId) ?? 1) - 1
    if (left > 0) held.set(workspaceId, left)
    else held.delete(workspaceId)
  }
}

/** Throws BUILD_MAINTENANCE_RUNNING while a maintenance attempt holds `workspaceId`. */
export function refuseBesideMaintenance(workspaceId: string): void {
  if (held.has(workspaceId)) throw new BuildMaintenanceRunning({ workspaceId })
}
