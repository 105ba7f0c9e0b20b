import { query, revalidate } from '@solidjs/router'
import type { HealthBody } from '../../../runtime/contracts/health.ts'
import { api, ApiError, ok } from '../api.ts'

/**
 * The server's health report (`GET /api/health`). A 503 (a database not answering) still carries
 * the report, which the chat's first-run check reads (compute host and gateway), so it is
 * returned too.
 */
export const getHealth = query(async (): Promise<HealthBody> => {
  let res: Response
  try {
    res = await api.health.$get()
  } catch {
    throw new ApiError(0, 'UNREACHABLE', 'popagent is not reachable; is the server running?')
  }
  if (res.status !== 200 && res.status !== 503) await ok(Promise.resolve(res))
  return (await res.json()) as HealthBody
}, 'health')

export const refreshHealth = () => revalidate(getHealth.key)
