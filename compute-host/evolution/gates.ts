import type { AgentPolicy } from '../../runtime/evolution/policy.ts'
import { overlayEntry, skillEntry } from '../../runtime/evolution/catalog.ts'
import { ProposalRefused } from '../../runtime/evolution/errors.ts'
import { PROTECTED_KEY } from '../../runtime/evolution/protected-keys.ts'
import {
  factKey,
  overlayKey,
  skillKey,
  type Snapshot,
  type Target,
} from '../../runtime/evolution/targets.ts'
import { FACT_MAX, type Reflection } from './reflection.ts'
import type { ClaimedSignal } from './types.ts'

/** Below this the model's own confidence is not enough to change anything. */
export const MIN_CONFIDENCE = 0.7
/** Distinct runs an overlay or skill needs behind it: one bad run is not a pattern. */
export const MIN_TRACES = 2

const FACT_KEY = /^[a-z0-9][a-z0-9._-]{0,63}$/

export type Change = {
  target: Target
  after: Snapshot
  /** Cited signals and their distinct traces. */
  signals: ClaimedSignal[]
  traceIds: string[]
}

export type Decision = { kind: 'no-action'; reason: string } | { kind: 'change'; change: Change }

const none = (reason: string): Decision => ({ kind: 'no-action', reason })

/**
 * The deterministic checks after the model: what it cited must be in the batch, its confidence
 * high enough, its target one evolution owns, its switch on, and the evidence enough for the
 * kind of change. A failed gate is `no-action` with the reason. A fact carrying a secret (what is
 * left after the one redactor) or naming a protected boundary throws `ProposalRefused`: the
 * batch ends with nothing changed, and the refusal is recorded.
 */
export function gate(
  agentId: string,
  reflection: Reflection,
  batch: readonly ClaimedSignal[],
  policy: AgentPolicy,
  redact: (text: string) => string,
): Decision {
  if (reflection.strategy === 'no-action') return none(`reflection: ${reflection.rationale}`)
  const byId = new Map(batch.map((s) => [s.id, s]))
  const cited = reflection.evidenceSignalIds.map((id) => byId.get(id))
  if (cited.length === 0 || cited.some((s) => !s)) {
    return none('the reflection cited no evidence, or evidence outside its batch')
  }
  const signals = cited as ClaimedSignal[]
  const traceIds = [...new Set(signals.flatMap((s) => s.traceIds))]
  if (reflection.confidence < MIN_CONFIDENCE) {
    return none(`confidence ${reflection.confidence} is below ${MIN_CONFIDENCE}`)
  }
  const change = (target: Target, after: Snapshot): Decision => ({
    kind: 'change',
    change: { target, after, signals, traceIds },
  })
  const fewTraces = () =>
    traceIds.length < MIN_TRACES
      ? none(`${traceIds.length} run(s) of evidence; a change needs ${MIN_TRACES}`)
      : undefined

  switch (reflection.strategy) {
    case 'overlay-apply':
    case 'overlay-retire': {
      const entry = reflection.catalogId ? overlayEntry(reflection.catalogId) : undefined
      if (!entry) return none(`${reflection.catalogId} is not an overlay of the catalog`)
      const target: Target = { kind: 'overlay', agentId, key: overlayKey(agentId, entry.id) }
      if (reflection.strategy === 'overlay-retire') {
        return change(target, { catalogId: entry.id, text: entry.text, state: 'retired' })
      }
      return (
        fewTraces() ?? change(target, { catalogId: entry.id, text: entry.text, state: 'active' })
      )
    }
    case 'skill-install':
    case 'skill-retire': {
      if (!policy.skillCreation) return none('skill creation is off')
      const entry = reflection.catalogId ? skillEntry(reflection.catalogId) : undefined
      if (!entry) return none(`${reflection.catalogId} is not a skill of the catalog`)
      const target: Target = { kind: 'skill', agentId, key: skillKey(agentId, entry.id) }
      const snapshot = {
        name: entry.id,
        description: entry.description,
        instructions: entry.instructions,
        enabled: reflection.strategy === 'skill-install',
        evolutionManaged: true,
      }
      if (reflection.strategy === 'skill-retire') return change(target, snapshot)
      return fewTraces() ?? change(target, snapshot)
    }
    case 'retain-fact': {
      if (!policy.factRetention) return none('automatic fact retention is off')
      const key = reflection.factKey?.trim() ?? ''
      const fact = reflection.fact?.trim() ?? ''
      if (!FACT_KEY.test(key)) return none(`"${key.slice(0, 64)}" is not a fact key`)
      if (!fact || fact.length > FACT_MAX) return none(`a fact is 1 to ${FACT_MAX} characters`)
      if (redact(fact) !== fact || redact(key) !== key) {
        throw new ProposalRefused(
          { agentId, key },
          { message: 'the proposed fact carries a secret; nothing was changed' },
        )
      }
      if (PROTECTED_KEY.test(key)) {
        throw new ProposalRefused(
          { agentId, key },
          {
            message: `the fact key "${key}" names a boundary only the owner sets; nothing was changed`,
          },
        )
      }
      return change({ kind: 'fact', agentId, key: factKey(agentId, key) }, { content: fact })
    }
  }
}
