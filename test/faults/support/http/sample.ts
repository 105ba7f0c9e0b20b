/**
 * Short mode's sample: a few cases per route and category, chosen by a seeded shuffle so every
 * category of every route is exercised in bounded time and a failing run can be replayed.
 */
import type { Case } from './cases.ts'

export function sampleCases(
  cases: Case[],
  seed: number,
  perGroup: { schema: number; other: number },
  oversizedRoutes: number,
): Case[] {
  const random = mulberry32(seed)
  const groups = new Map<string, Case[]>()
  for (const c of cases) {
    const key = `${c.route} ${c.category}`
    groups.set(key, [...(groups.get(key) ?? []), c])
  }
  // Bodies of 4–10 MB are slow on two cores: only a few routes get them in short mode.
  const routes = [...new Set(cases.map((c) => c.route))]
  const big = new Set(shuffle(routes, random).slice(0, oversizedRoutes))
  const out: Case[] = []
  for (const group of groups.values()) {
    const { route, category } = group[0]!
    if (category === 'oversized' && !big.has(route)) continue
    const n = category === 'schema' ? perGroup.schema : perGroup.other
    out.push(...shuffle(group, random).slice(0, category === 'oversized' ? group.length : n))
  }
  return out
}

function shuffle<T>(items: T[], random: () => number): T[] {
  const a = [...items]
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[a[i], a[j]] = [a[j]!, a[i]!]
  }
  return a
}

function mulberry32(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
