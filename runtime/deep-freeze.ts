/**
 * Freezes a value and everything it holds, for what is shared between runs once built: a caller
 * that tried to change it would change every other run's copy, and now throws instead.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value
  // A Date stays usable (its methods read internal slots, which freezing does not touch).
  for (const inner of Object.values(value)) deepFreeze(inner)
  return Object.freeze(value)
}
