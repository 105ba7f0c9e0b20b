import type { GatewayStatus } from '../../runtime/contracts/health.ts'
import { requestModels } from './request-models.ts'
import { errorMessage } from '../../runtime/error-message.ts'

const PROBE_TIMEOUT_MS = 2_000
const CACHE_MS = 5_000

/**
 * Reports whether the model gateway answers its model catalog. Used by health only: an outage is
 * reported, never a readiness failure. Results are cached briefly so a health poll cannot turn
 * into load on the gateway.
 */
export function createGatewayProbe(options: {
  url: string
  apiKey?: string
  fetch?: typeof fetch
}) {
  let cached: { at: number; status: Promise<GatewayStatus> } | undefined

  async function check(): Promise<GatewayStatus> {
    const started = performance.now()
    const latency = () => Math.round(performance.now() - started)
    try {
      const response = await requestModels({ ...options, timeoutMs: PROBE_TIMEOUT_MS })
      await response.body?.cancel()
      if (!response.ok) {
        return {
          configured: true,
          reachable: false,
          latencyMs: latency(),
          error: `gateway answered ${response.status}`,
        }
      }
      return { configured: true, reachable: true, latencyMs: latency() }
    } catch (error) {
      const message = errorMessage(error)
      return { configured: true, reachable: false, latencyMs: latency(), error: message }
    }
  }

  return {
    status(): Promise<GatewayStatus> {
      const now = Date.now()
      if (!cached || now - cached.at > CACHE_MS) cached = { at: now, status: check() }
      return cached.status
    },
  }
}
