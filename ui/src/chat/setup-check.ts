/**
 * What keeps the chat from working before a message is sent, read from `GET /api/health` and
 * `GET /api/models`. Pure: the first-run panel (first-run.tsx) says what to do about it.
 */
import type { HealthBody } from '../../../runtime/contracts/health.ts'
import type { ModelsBody } from '../../../runtime/contracts/models.ts'

export type SetupProblem =
  | { kind: 'host-down'; detail?: string | undefined }
  | { kind: 'gateway-down'; detail?: string | undefined }
  | { kind: 'no-models' }

export function setupProblem(
  health: HealthBody | undefined,
  models: ModelsBody | undefined,
): SetupProblem | undefined {
  if (health && !health.computeHost.reachable) {
    return { kind: 'host-down', detail: health.computeHost.error }
  }
  const gateway = health?.gateway
  if (gateway && (!gateway.configured || !gateway.reachable)) {
    return { kind: 'gateway-down', detail: gateway.error }
  }
  if (models && !models.warning && noCatalog(models)) return { kind: 'no-models' }
  return undefined
}

/**
 * Whether the gateway's catalog is empty. The models answer always lists the default model,
 * prepended when the catalog lacks it, so an empty catalog reads as the default alone with no
 * context window known. A gateway offering exactly the default model and no context windows reads
 * the same; the panel therefore lets the owner continue anyway.
 */
function noCatalog(models: ModelsBody): boolean {
  const listed = models.models.filter((id) => id.length > 0)
  if (listed.length === 0) return true
  return (
    listed.length === 1 &&
    listed[0] === models.defaultModel &&
    Object.keys(models.contextWindows).length === 0
  )
}
