import type { Db } from '../../db/index.ts'
import type { EvolutionDryRun } from '../../runtime/contracts/evolution.ts'
import type { FeedbackBody } from '../../runtime/contracts/observability.ts'
import * as Settings from '../../runtime/settings/index.ts'
import type { Logger } from '../log.ts'
import type { GatewayModels } from '../models/gateway-models.ts'
import type { ObserverRegistry } from '../runs/observer-registry.ts'
import { createRunBudget, limitsFrom } from '../runs/budget.ts'
import { NO_PRICES, type RunPrices } from '../runs/cost-cap.ts'
import { dryRun } from './dry-run.ts'
import { createReflector } from './reflection.ts'
import { feedbackSignal, runSignals, taskSignals } from './signal-observers.ts'
import { createEvolutionWorker, type EvolutionWorker } from './worker.ts'

export type Evolution = {
  worker: EvolutionWorker
  /** Records a thumbs-down as a signal (best effort; the feedback itself is already stored). */
  feedback(body: FeedbackBody): Promise<void>
  /** What a pass would change now, changing nothing. */
  dryRun(): Promise<EvolutionDryRun>
}

/**
 * Agent evolution on this host (issue 39): the signal observers join the host's registry, and the
 * worker reflects with the owner's default model (read at each reflection), priced under the
 * unattended cost cap. The caller starts and stops the worker with the other runners.
 */
export function createEvolution(deps: {
  db: Db
  log: Logger
  models: GatewayModels
  observers: ObserverRegistry
  redact: (text: string) => string
  workerId: string
  intervalMs?: number
  leaseMs?: number
  /** The price table; without it reflection is unpriced (counted by no cap). */
  prices?: () => Promise<RunPrices>
  /** Told of each held proposal (the owner is asked on a channel: channel-review.ts). */
  onHeld?: (proposalId: string) => Promise<unknown>
}): Evolution {
  const signalDeps = { db: deps.db, log: deps.log, redact: deps.redact }
  deps.observers.addTaskObserver(taskSignals(signalDeps))
  deps.observers.addRunObserver(runSignals(signalDeps))
  const reflect = createReflector({
    models: deps.models,
    model: async () => (await Settings.agentRuntime.get(deps.db)).effectiveDefaultModel,
  })
  // Evolution is unattended work: a pass (or a dry run) spends at most the unattended cost cap.
  const passBudget = async () =>
    createRunBudget(limitsFrom(await Settings.agentRuntime.get(deps.db), null, true), {
      prices: await (deps.prices?.() ?? NO_PRICES),
    })
  return {
    worker: createEvolutionWorker({
      passBudget,
      db: deps.db,
      log: deps.log,
      reflect,
      redact: deps.redact,
      workerId: deps.workerId,
      ...(deps.intervalMs !== undefined && { intervalMs: deps.intervalMs }),
      ...(deps.leaseMs !== undefined && { leaseMs: deps.leaseMs }),
      ...(deps.onHeld && { onHeld: deps.onHeld }),
    }),
    feedback: (body) => feedbackSignal(signalDeps, body),
    dryRun: () => dryRun({ db: deps.db, reflect, redact: deps.redact, budget: passBudget }),
  }
}
