import type { RunAgent, RunEvent, RunRef } from '../runs/run-events.ts'
import type { RecallOutcome } from './recall.ts'
import { provenanceOf } from './recall-block.ts'

/** The `recall` run event of an outcome worth showing: items were used, or the vectors failed. */
export function recallEvent(
  run: RunRef,
  agent: RunAgent,
  outcome: RecallOutcome,
): RunEvent | undefined {
  if (outcome.items.length === 0 && !outcome.note) return undefined
  return {
    type: 'recall',
    run,
    ...agent,
    query: outcome.query,
    mode: outcome.mode,
    ...(outcome.note && { note: outcome.note }),
    durationMs: outcome.durationMs,
    items: outcome.items.map((item) => ({
      itemId: item.id,
      kind: item.kind,
      provenance: provenanceOf(item),
      score: Math.round(item.score * 1e6) / 1e6,
      text: item.text,
    })),
  }
}
