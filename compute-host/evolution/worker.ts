import type { Db } from '../../db/index.ts'
import type { EvolutionPass } from '../../runtime/contracts/evolution.ts'
import { errorMessage } from '../../runtime/error-message.ts'
import { lockPolicy } from '../../runtime/evolution/policy.ts'
import type { Logger } from '../log.ts'
import type { RunBudget } from '../runs/budget.ts'
import { createSerialQueue } from '../tasks/serial-queue.ts'
import { applyReflection } from './apply.ts'
import type { Reflect } from './reflection.ts'
import { claim } from './sql/claim.ts'
import { pruneSettled } from './sql/prune.ts'
import { recoverAbandoned } from './sql/recover-abandoned.ts'
import { revertRegressions } from './regressions.ts'
import { releaseFailed } from './sql/release.ts'
import type { ClaimedSignal } from './types.ts'

export type EvolutionWorkerOptions = {
  db: Db
  log: Logger
  reflect: Reflect
  redact: (text: string) => string
  /** Names this worker's claims (one per host). */
  workerId: string
  /** Between passes; 60 s in production. */
  intervalMs?: number
  batchSize?: number
  /** How long a claim is held before another worker may take it over. */
  leaseMs?: number
  /**
   * A pass's budget under the unattended cost cap (index.ts): each reflection of the pass is
   * priced and reserved against it, and one that could pass the cap is not made.
   */
  passBudget?: () => Promise<RunBudget>
  /**
   * Told of each proposal a batch held (channel-review.ts asks the owner on a channel); a failure
   * costs only that question, never the batch.
   */
  onHeld?: (proposalId: string) => Promise<unknown>
}

/**
 * The evolution worker: one per host. A pass first recovers abandoned claims, then claims a batch
 * of due signals (`FOR UPDATE SKIP LOCKED`, so hosts never share one), groups it by agent, asks
 * reflection once per agent and applies the answer (apply.ts). A failed reflection or apply puts
 * that agent's signals back with backoff, and so does a reflection the pass's cost cap did not
 * allow (it is not made). Passes never overlap on one host (the timer's and a
 * "run now" queue behind each other), and start and stop are serialised the same way.
 */
export function createEvolutionWorker(options: EvolutionWorkerOptions) {
  const { db, log, workerId } = options
  const intervalMs = options.intervalMs ?? 60_000
  const batchSize = options.batchSize ?? 20
  const leaseMs = options.leaseMs ?? 5 * 60_000
  const passes = createSerialQueue()
  const lifecycle = createSerialQueue()
  let timer: ReturnType<typeof setInterval> | undefined
  let stopping: AbortController | undefined

  async function agentBatch(
    agentId: string,
    batch: ClaimedSignal[],
    pass: EvolutionPass,
    budget: RunBudget | undefined,
  ) {
    const ids = batch.map((s) => s.id)
    try {
      // Off already: the model is not asked; apply ignores the batch under the lock.
      const enabled = await db.transaction(async (tx) => (await lockPolicy(tx, agentId)).evolve)
      const reflection = enabled
        ? await options.reflect(agentId, batch, stopping?.signal, budget)
        : undefined
      const applied = await applyReflection(
        { db, redact: options.redact, workerId },
        agentId,
        batch,
        reflection,
      )
      if (applied.kind === 'ignored') pass.ignored += batch.length
      else pass.processed += batch.length
      if (applied.kind === 'revision') pass.revisions.push(applied.revisionId)
      if (applied.kind === 'held') pass.held.push(applied.proposalId)
      log.info('evolution batch', { agentId, signals: ids.length, ...applied })
      if (applied.kind === 'held' && options.onHeld) {
        const proposalId = applied.proposalId
        await options
          .onHeld(proposalId)
          .catch((error: unknown) =>
            log.warn('could not ask about a held proposal on its channel', { proposalId, error }),
          )
      }
    } catch (error) {
      pass.failed += batch.length
      log.warn('evolution batch failed; its signals wait and are tried again', {
        agentId,
        signals: ids.length,
        error,
      })
      await releaseFailed(db, ids, workerId, errorMessage(error)).catch((releaseError: unknown) =>
        log.error('evolution release failed; the lease will recover them', { error: releaseError }),
      )
    }
  }

  function runPass(): Promise<EvolutionPass> {
    return passes.run(async () => {
      const pass: EvolutionPass = {
        recovered: 0,
        claimed: 0,
        processed: 0,
        ignored: 0,
        failed: 0,
        revisions: [],
        held: [],
        reverted: [],
      }
      pass.recovered = await recoverAbandoned(db)
      await pruneSettled(db)
      // Changes the same failures followed are taken back before anything new is learned.
      for (const m of await revertRegressions(db)) {
        if (m.revertedBy) pass.reverted.push(m.revertedBy)
      }
      const claimed = await claim(db, workerId, batchSize, leaseMs)
      pass.claimed = claimed.length
      const byAgent = new Map<string, ClaimedSignal[]>()
      for (const s of claimed) byAgent.set(s.agentId, [...(byAgent.get(s.agentId) ?? []), s])
      // One pass is one piece of unattended work: its reflections share one cost cap.
      const budget = byAgent.size > 0 ? await options.passBudget?.() : undefined
      for (const [agentId, batch] of byAgent) await agentBatch(agentId, batch, pass, budget)
      return pass
    })
  }

  return {
    /** One pass now (the autonomy page's "run now"); queued behind a pass already running. */
    runNow: runPass,
    start(): Promise<void> {
      return lifecycle.run(async () => {
        if (timer) return
        stopping = new AbortController()
        timer = setInterval(() => {
          runPass().catch((error: unknown) => log.warn('evolution pass failed', { error }))
        }, intervalMs)
        timer.unref?.()
      })
    },
    /** Stops the timer, aborts a reflection in flight and waits for the pass to settle. */
    stop(): Promise<void> {
      return lifecycle.run(async () => {
        if (!timer) return
        clearInterval(timer)
        timer = undefined
        stopping?.abort()
        await passes.idle
      })
    },
  }
}
export type EvolutionWorker = ReturnType<typeof createEvolutionWorker>
