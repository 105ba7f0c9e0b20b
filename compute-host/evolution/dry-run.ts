import { asc, eq } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { evolutionSignals } from '../../db/schema/index.ts'
import type { EvolutionDryRun } from '../../runtime/contracts/evolution.ts'
import { errorMessage } from '../../runtime/error-message.ts'
import { ProposalRefused } from '../../runtime/evolution/errors.ts'
import { lockPolicy } from '../../runtime/evolution/policy.ts'
import { readTarget } from '../../runtime/evolution/targets.ts'
import { gate } from './gates.ts'
import type { RunBudget } from '../runs/budget.ts'
import { ReflectionOverCap, type Reflect } from './reflection.ts'
import type { ClaimedSignal } from './types.ts'

// As many signals as one pass would claim.
const DRY_RUN_SIGNALS = 20

/**
 * What a pass would change now, without changing anything: the pending signals are read (not
 * claimed, so the worker still gets them), reflection is asked per agent as in a pass, and the
 * gates decide; each proposal comes back with the target's current state and what it would
 * become. The policy is read the same way (an agent that is off would have its signals ignored).
 */
export async function dryRun(deps: {
  db: Db
  reflect: Reflect
  redact: (text: string) => string
  /** The dry run's cost cap: the unattended one, as a pass has. */
  budget?: () => Promise<RunBudget>
}): Promise<EvolutionDryRun> {
  const pending = await deps.db
    .select()
    .from(evolutionSignals)
    .where(eq(evolutionSignals.status, 'pending'))
    .orderBy(asc(evolutionSignals.nextAttemptAt), asc(evolutionSignals.id))
    .limit(DRY_RUN_SIGNALS)
  const byAgent = new Map<string, ClaimedSignal[]>()
  for (const s of pending) byAgent.set(s.agentId, [...(byAgent.get(s.agentId) ?? []), s])
  const proposals: EvolutionDryRun['proposals'] = []
  const budget = byAgent.size > 0 ? await deps.budget?.() : undefined
  for (const [agentId, batch] of byAgent) {
    const signalIds = batch.map((s) => s.id)
    const policy = await deps.db.transaction((tx) => lockPolicy(tx, agentId))
    const none = { targetKey: null, before: null, after: null }
    if (!policy.evolve) {
      proposals.push({
        agentId,
        signalIds,
        strategy: 'no-action',
        decision: 'ignored',
        ...none,
        reason: 'evolution is off for this agent',
      })
      continue
    }
    let reflection
    try {
      reflection = await deps.reflect(agentId, batch, undefined, budget)
    } catch (error) {
      // Over the cap, the gateway away, or an answer outside the schema: said for this agent, as
      // a pass would leave its signals waiting; the other agents' reflections still run.
      const overCap = error instanceof ReflectionOverCap
      proposals.push({
        agentId,
        signalIds,
        strategy: 'no-action',
        decision: overCap ? 'no-action' : 'failed',
        ...none,
        reason: overCap ? error.message : `reflection failed: ${errorMessage(error)}`,
      })
      continue
    }
    try {
      const decision = gate(agentId, reflection, batch, policy, deps.redact)
      if (decision.kind === 'no-action') {
        proposals.push({
          agentId,
          signalIds,
          strategy: reflection.strategy,
          decision: 'no-action',
          ...none,
          reason: decision.reason,
        })
        continue
      }
      const { target, after } = decision.change
      const before = await deps.db.transaction((tx) => readTarget(tx, target))
      proposals.push({
        agentId,
        signalIds,
        strategy: reflection.strategy,
        decision: 'change',
        targetKey: target.key,
        before,
        after,
        reason: reflection.rationale,
      })
    } catch (error) {
      if (!(error instanceof ProposalRefused)) throw error
      proposals.push({
        agentId,
        signalIds,
        strategy: reflection.strategy,
        decision: 'refused',
        ...none,
        reason: error.message,
      })
    }
  }
  return { proposals }
}
