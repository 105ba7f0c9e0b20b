/**
 * Times Mastra's storage calls in a bench server process (`@mastra/pg`'s domain stores: memory,
 * workflows, thread state…), so the turn-latency bench can tell the memory's database time apart
 * from the rest of "Mastra until the model request". Every method that returns a promise is
 * timed (start and settle, epoch ms); nothing else changes. Only bench processes call this.
 */
import * as pgStores from '@mastra/pg'

export type StorageCall = { name: string; start: number; end: number }

const now = () => performance.timeOrigin + performance.now()
// Set-up and maintenance calls are not a turn's.
const SKIPPED = /^(constructor|init|dangerously|prune|ensure|create\w*Index|getDefaultIndex)/
const LIMIT = 20_000

export function traceStorage() {
  let calls: StorageCall[] = []
  for (const [className, value] of Object.entries(pgStores)) {
    if (typeof value !== 'function' || !/PG$/.test(className)) continue
    const proto = (value as { prototype: Record<string, unknown> }).prototype
    for (const method of Object.getOwnPropertyNames(proto)) {
      const descriptor = Object.getOwnPropertyDescriptor(proto, method)
      const original = descriptor?.value
      if (typeof original !== 'function' || SKIPPED.test(method)) continue
      const name = `${className}.${method}`
      proto[method] = function (this: unknown, ...args: unknown[]) {
        const start = now()
        const result = original.apply(this, args)
        if (result && typeof (result as Promise<unknown>).then === 'function') {
          const done = () => {
            if (calls.length < LIMIT) calls.push({ name, start, end: now() })
          }
          ;(result as Promise<unknown>).then(done, done)
        }
        return result
      }
    }
  }
  return {
    /** The calls settled since the last take. */
    take(): StorageCall[] {
      const taken = calls
      calls = []
      return taken
    },
  }
}

/**
 * The calls that began within [from, to]: their count, the time at least one was in flight
 * (overlaps counted once, so a call made inside another is not counted twice), and the calls by
 * name.
 */
export function storageWithin(calls: StorageCall[], from: number, to: number) {
  const inside = calls
    .filter((c) => c.start >= from && c.start <= to)
    .sort((a, b) => a.start - b.start)
  let busy = 0
  let reach = -Infinity
  for (const c of inside) {
    const end = Math.min(c.end, to)
    if (end <= reach) continue
    busy += end - Math.max(c.start, reach)
    reach = end
  }
  const byName: Record<string, number> = {}
  for (const c of inside) byName[c.name] = (byName[c.name] ?? 0) + 1
  return { count: inside.length, busyMs: busy, byName }
}
