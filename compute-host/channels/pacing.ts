import type { ChannelLimits, ChannelTarget } from './types.ts'

/** How the outbox paces one chat's chunks: stored on each row, read by the claim. */
export type ChatPacing = { paceMs: number; window?: { max: number; ms: number } }

/** The pacing a channel's limits give one chat (its rolling cap only where it applies). */
export function pacingFor(limits: ChannelLimits, target: ChannelTarget): ChatPacing {
  const cap = limits.rollingCap
  return {
    paceMs: limits.minIntervalMs,
    ...(cap?.appliesTo(target) && { window: { max: cap.max, ms: cap.windowMs } }),
  }
}

/**
 * Limits with their times multiplied by `scale` (POPAGENT_CHANNEL_PACE_SCALE, for tests that
 * watch a minute's cap without waiting a minute); counts and sizes are unchanged.
 */
export function scaledLimits(limits: ChannelLimits, scale: number): ChannelLimits {
  if (scale === 1) return limits
  const cap = limits.rollingCap
  return {
    ...limits,
    minIntervalMs: Math.round(limits.minIntervalMs * scale),
    ...(cap && { rollingCap: { ...cap, windowMs: Math.round(cap.windowMs * scale) } }),
  }
}
