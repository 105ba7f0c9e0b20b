import { z } from 'zod'

/** What one dependency probe found. `latencyMs` is wall time of the probe itself. */
export const ProbeResult = z.object({
  ok: z.boolean(),
  latencyMs: z.number(),
  error: z.string().optional(),
})
export type ProbeResult = z.infer<typeof ProbeResult>

export const GatewayStatus = z.object({
  configured: z.boolean(),
  reachable: z.boolean(),
  latencyMs: z.number().optional(),
  error: z.string().optional(),
})
export type GatewayStatus = z.infer<typeof GatewayStatus>

export type HealthBody = {
  status: 'ok' | 'unavailable'
  databases: { application: ProbeResult; observability: ProbeResult }
  /** Reported, never a readiness blocker. */
  computeHost: { reachable: boolean; error?: string; startedAt?: string }
  /** Reported, never a readiness blocker. */
  gateway: GatewayStatus | null
}
