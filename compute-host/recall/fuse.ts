import type { RecallKind } from '../../db/memory-enums.ts'
import type { Candidate, RecalledItem } from './candidates.ts'

/** What the owner wrote outranks what an agent concluded, which outranks a past conversation. */
export const KIND_WEIGHTS: Record<RecallKind, number> = {
  user_memory: 1,
  agent_fact: 0.8,
  message_span: 0.6,
}
// Reciprocal rank fusion's usual constant: the top few ranks of either leg count about equally.
const RRF_K = 60
// The vector leg always returns neighbours; one found only there must be this similar to count
// (measured on the recall bench's dev split, docs/memory.md).
export const MIN_COSINE = 0.55
export const MAX_ITEM_TOKENS = 300
export const MAX_ITEMS = 6
const TRUNCATED = ' …[truncated]'

/** About four characters a token: a bound, not a tokenizer. */
export const estimateTokens = (text: string) => Math.ceil(text.length / 4)

/**
 * Merges the two legs by reciprocal rank fusion, weighted by kind; drops vector-only items below
 * the similarity floor and items repeating one already chosen; packs greedily by score (ties by
 * id, so the same inputs always give the same block) within the budget, each item bounded.
 */
export function fuse(
  candidates: readonly Candidate[],
  options: { budgetTokens: number; maxItems?: number },
): RecalledItem[] {
  const byId = new Map<string, Candidate>()
  for (const c of candidates) byId.set(c.id, { ...byId.get(c.id), ...c })
  const scored = [...byId.values()]
    .filter((c) => c.ftsRank !== undefined || (c.cosine ?? 0) >= MIN_COSINE)
    .map((c) => {
      const rrf =
        (c.ftsRank ? 1 / (RRF_K + c.ftsRank) : 0) + (c.vectorRank ? 1 / (RRF_K + c.vectorRank) : 0)
      return { ...c, score: rrf * KIND_WEIGHTS[c.kind] }
    })
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  const chosen: RecalledItem[] = []
  const seen = new Set<string>()
  let used = 0
  for (const c of scored) {
    if (chosen.length >= (options.maxItems ?? MAX_ITEMS)) break
    const collapsed = c.content.replace(/\s+/g, ' ').trim()
    const norm = collapsed.toLowerCase()
    if (seen.has(norm)) continue
    const text = bounded(collapsed)
    const tokens = estimateTokens(text)
    if (used + tokens > options.budgetTokens) continue
    seen.add(norm)
    used += tokens
    chosen.push({ ...c, text, tokens })
  }
  return chosen
}

function bounded(text: string): string {
  const max = MAX_ITEM_TOKENS * 4
  return text.length > max ? text.slice(0, max - TRUNCATED.length) + TRUNCATED : text
}
