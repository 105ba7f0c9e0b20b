import { byCodeUnits } from './code-unit-order.ts'

/**
 * JSON with every object's keys in code-unit order, so the same value written twice is the same
 * text whatever order its keys were built in (a tool call's identity in the loop guard and the
 * hook gate).
 */
export function stableJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v: unknown) =>
      v && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => byCodeUnits(a, b)))
        : v,
    ) ?? 'undefined'
  )
}
