import { BuildStatus } from './build.ts'
import type { HostRoute } from './host-api.ts'

/** The host endpoint behind /api/build/status. Spread into `hostRoutes` (host-api.ts). */
export const buildHostRoutes = {
  buildStatus: {
    method: 'GET',
    path: '/internal/build/status',
    output: BuildStatus,
    timeoutMs: 15_000,
    does: "read AkurAI Build's status",
  },
} as const satisfies Record<string, HostRoute>
