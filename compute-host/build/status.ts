import type { BuildStatus } from '../../runtime/contracts/build.ts'
import type { BuildClient } from './client.ts'
import { BUILD_OPERATIONS } from './operations.ts'

/**
 * The status the API shows: disabled with the reason, or the connection and, per `build-*` tool,
 * the operations the server lacks. Asking lists the operations (connecting if need be), so the
 * page shows the server as it is now.
 */
export async function buildStatus(client: BuildClient): Promise<BuildStatus> {
  const before = client.status()
  if (!before.enabled) return before
  await client.refresh()
  const status = client.status()
  if (!status.enabled) return status
  const known = client.knownOperations()
  const missing: Record<string, string[]> = {}
  if (known) {
    for (const [tool, ops] of Object.entries(BUILD_OPERATIONS)) {
      const lacking = ops.map((o) => o.name).filter((o) => !known.has(o))
      if (lacking.length > 0) missing[tool] = lacking
    }
  }
  const connection = status.connection
  return {
    enabled: true,
    url: status.url,
    status: connection.status,
    lastError: connection.lastError ?? null,
    operations: status.operations ?? null,
    missing,
  }
}
