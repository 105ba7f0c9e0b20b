/** Recall's fusion and packing: pure, deterministic, bounded (design §2, test 5). */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { fuse } from '../compute-host/recall/fuse.ts'

describe('fusion and packing', () => {
  const candidates = Array.from({ length: 50 }, (_, i) => ({
    id: `rci_${String(i).padStart(3, '0')}`,
    kind: (['user_memory', 'agent_fact', 'message_span'] as const)[i % 3]!,
    content: `item ${i} `.repeat(200),
    sessionId: null,
    sessionTitle: null,
    memoryId: null,
    turnId: null,
    createdAt: new Date(0),
    ftsRank: (i % 7) + 1,
    ...(i % 2 ? { vectorRank: (i % 5) + 1, cosine: 0.9 } : {}),
  }))

  test('50 candidates of 10k tokens pack within the budget, the same way every time', () => {
    const first = fuse(candidates, { budgetTokens: 1_500, maxItems: 50 })
    const total = first.reduce((s, i) => s + i.tokens, 0)
    assert.ok(total <= 1_500, `${total}`)
    assert.ok(first.every((i) => i.tokens <= 300))
    assert.ok(first.every((i) => i.text.endsWith('…[truncated]')))
    for (let run = 0; run < 100; run++) {
      const again = fuse([...candidates].reverse(), { budgetTokens: 1_500, maxItems: 50 })
      assert.deepEqual(
        again.map((i) => i.id),
        first.map((i) => i.id),
      )
    }
  })

  test('a vector-only candidate below the similarity floor is dropped', () => {
    const [c] = candidates
    const out = fuse([{ ...c!, ftsRank: undefined, vectorRank: 1, cosine: 0.1 }], {
      budgetTokens: 1_500,
    })
    assert.deepEqual(out, [])
  })
})
