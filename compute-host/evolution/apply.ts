import { eq } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { evolutionRevisions } from '../../db/schema/index.ts'
import { sha256Hex } from '../../runtime/docs/sha256.ts'
import { changesToday, DAILY_CHANGES } from '../../runtime/evolution/daily-limit.ts'
import { ProposalRefused } from '../../runtime/evolution/errors.ts'
import { lockPolicy } from '../../runtime/evolution/policy.ts'
import { hold } from '../../runtime/evolution/proposals.ts'
import { applyChange, type ChangeInput } from '../../runtime/evolution/revisions.ts'
import { gate } from './gates.ts'
import type { Reflection } from './reflection.ts'
import { fenceClaims, finishClaims } from './sql/settle.ts'
import type { ClaimedSignal } from './types.ts'

export { DAILY_CHANGES }

export type Applied =
  | { kind: 'ignored'; reason: string }
  | { kind: 'no-action'; reason: string }
  | { kind: 'refused'; reason: string }
  | { kind: 'revision'; revisionId: string }
  | { kind: 'held'; proposalId: string }

/**
 * Applies one agent's reflection in one transaction: the policy is locked and read again (a
 * disabled global or agent switch wins: the signals become `ignored` and nothing changes), the
 * worker's claims are fenced, the gates decide, the change and its revision are written, and the
 * signals complete, all or nothing. For an agent under review the change is held as a proposal
 * instead (the signals complete with its id) and nothing else is written. `reflection` is undefined when the policy was already off
 * before the model was asked (the model is not asked then).
 *
 * A refused proposal (a secret, a protected boundary, an owner's skill) rolls back whatever it had
 * written; its signals are then completed with the refusal in a transaction of their own.
 */
export async function applyReflection(
  deps: { db: Db; redact: (text: string) => string; workerId: string },
  agentId: string,
  batch: readonly ClaimedSignal[],
  reflection: Reflection | undefined,
): Promise<Applied> {
  const ids = batch.map((s) => s.id)
  try {
    return await deps.db.transaction(async (tx): Promise<Applied> => {
      const policy = await lockPolicy(tx, agentId)
      await fenceClaims(tx, ids, deps.workerId)
      if (!policy.evolve || !reflection) {
        const reason = 'evolution is off for this agent'
        await finishClaims(tx, ids, 'ignored', reason)
        return { kind: 'ignored', reason }
      }
      let decision = gate(agentId, reflection, batch, policy, deps.redact)
      if (decision.kind === 'change' && (await changesToday(tx, agentId)) >= DAILY_CHANGES) {
        decision = { kind: 'no-action', reason: `${DAILY_CHANGES} changes in the last 24 h` }
      }
      if (decision.kind === 'no-action') {
        await finishClaims(tx, ids, 'processed', `no-action: ${decision.reason}`)
        return decision
      }
      const decisionKey = await sha256Hex(JSON.stringify([agentId, [...ids].sort()]))
      const [replayed] = await tx
        .select({ id: evolutionRevisions.id })
        .from(evolutionRevisions)
        .where(eq(evolutionRevisions.decisionKey, decisionKey))
      const { change } = decision
      const input: ChangeInput = {
        target: change.target,
        strategy: reflection.strategy,
        after: change.after,
        signalIds: change.signals.map((s) => s.id),
        traceIds: change.traceIds,
        evidence: change.signals
          .map((s) => s.evidence)
          .join('\n---\n')
          .slice(0, 4_000),
        rationale: reflection.rationale.slice(0, 500),
        decisionKey,
        sessionId: change.signals.find((s) => s.sessionId)?.sessionId ?? null,
      }
      // Under review nothing changes: the proposal waits for the owner (proposals.ts approves it
      // through the same checks as below).
      if (policy.review && !replayed) {
        const proposalId = await hold(tx, input)
        await finishClaims(
          tx,
          ids,
          'processed',
          `held for review ${reflection.strategy} ${change.target.key}: ${proposalId}`,
        )
        return { kind: 'held', proposalId }
      }
      const revisionId = replayed?.id ?? (await applyChange(tx, input))
      await finishClaims(
        tx,
        ids,
        'processed',
        `${reflection.strategy} ${change.target.key}: ${revisionId}`,
      )
      return { kind: 'revision', revisionId }
    })
  } catch (error) {
    if (!(error instanceof ProposalRefused)) throw error
    await deps.db.transaction(async (tx) => {
      await fenceClaims(tx, ids, deps.workerId)
      await finishClaims(tx, ids, 'processed', `refused: ${error.message}`)
    })
    return { kind: 'refused', reason: error.message }
  }
}
