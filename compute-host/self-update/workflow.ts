import type { MastraLogger } from '@mastra/core/logger'
import { createStep, createWorkflow } from '@mastra/core/workflows'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { z } from 'zod'
import type { Db } from '../../db/index.ts'
import type { WorkflowPhase } from '../../db/self-update-enums.ts'
import { acceptReview } from '../../runtime/self-update/review-gate.ts'
import * as Settings from '../../runtime/settings/index.ts'
import { recordPhase } from '../../runtime/self-update/phase-store.ts'
import {
  CommitOut,
  Ctx,
  Decision,
  DecideOut,
  ImplementOut,
  ImplementReport,
  InspectOut,
  parseModelJson,
  PrepareOut,
  ResearchOut,
  ResearchReport,
  Review,
  ReviewOut,
  VerifyOut,
} from '../../runtime/self-update/phase-outputs.ts'
import type { GatewayModels } from '../models/gateway-models.ts'
import type { RunBudget } from '../runs/budget.ts'
import { costCapped, type RunPrices } from '../runs/cost-cap.ts'
import type { RunEvent } from '../runs/run-events.ts'
import type { SandboxStatus } from '../workspaces/sandbox-check.ts'
import { requireCleanCheckout, type CheckoutState } from './checkout-state.ts'
import { commitMessage } from './commit-identity.ts'
import { commitReviewed } from './commit-reviewed.ts'
import { freshClone, type SelfUpdateClone } from './fresh-clone.ts'
import { importReviewed } from './import-ref.ts'
import { currentDigest, inspectChange } from './inspect-change.ts'
import { exportTree } from './export-tree.ts'
import { phaseAgent } from './phase-agents.ts'
import { repeatBreaker } from './repeat-breaker.ts'
import { ownerReview } from './owner-review.ts'
import type { Approvals } from '../approvals/approvals.ts'
import { runChecks } from './verify-checks.ts'

export const RESEARCH_ITERATIONS = 5
const RESEARCH_STEPS = 8
const IMPLEMENT_STEPS = 40
const LATER_PHASES: WorkflowPhase[] = ['implement', 'inspect-change', 'verify', 'review', 'commit']

export type SelfUpdateDeps = {
  db: Db
  models: GatewayModels
  sandbox: SandboxStatus
  /** The repository's own checks, as argv lists; the command policy judges each. */
  verifyCommands: readonly (readonly string[])[]
  protectedPaths?: readonly string[]
  checkLimitMs: number
  redact: (text: string) => string
  /** Where Mastra's own lines about the run and its agents go (the host's redacting log). */
  mastraLogger?: MastraLogger
  /** The price table the cost cap reads (the host's price cache); without it no model is priced. */
  prices?: () => Promise<RunPrices>
  /**
   * How long an approved patch waits for the owner's review (owner-review.ts); 0 or absent: the
   * model reviewer's approval is enough, as before.
   */
  ownerReviewMs?: number
  /** Asks the owner (compute-host/approvals/); needed when `ownerReviewMs` is set. */
  approvals?: Approvals
}

export type SelfUpdateAttempt = {
  taskId: string
  attempt: number
  createdAt: Date
  goal: string
  repo: string
  route: string
  /** An empty, host-private directory for this attempt's clone. */
  cloneDir: string
  signal: AbortSignal
  workspaceId: string
  /**
   * The task tree's budget, under the unattended cost cap: every phase agent's model call
   * reserves its worst case first, and the call that could pass the cap is not made.
   */
  budget: RunBudget
  /** Where a phase's cost-cap stop is told (the task's transcript). */
  onGuard?: (event: Extract<RunEvent, { type: 'guard' }>) => void
  /** The channel conversation the task's result goes to: the owner's review is asked there too. */
  deliverToBindingId?: string | null
}

/**
 * The self-update workflow (S2) for one attempt: prepare → research (until done, at most five
 * iterations) → decide → implement → inspect-change → verify → review → commit. Each step parses
 * its output with its schema (Mastra checks none) and stores it as the phase's evidence; a no-op
 * decision bails, marking the later phases skipped. Mastra keeps no snapshot and never retries or
 * restarts a run: the task runner owns attempts and recovery.
 */
export function selfUpdateWorkflow(deps: SelfUpdateDeps, attempt: SelfUpdateAttempt) {
  // What must not pass through Mastra's serialised handoffs: the recorded checkout (refs map)
  // and the clone's paths as the host created them.
  let checkout: CheckoutState | undefined
  let clone: SelfUpdateClone | undefined
  const failures: { phase: WorkflowPhase; error: unknown }[] = []

  async function phase<T extends Record<string, unknown>>(
    name: WorkflowPhase,
    schema: z.ZodType<T>,
    body: () => Promise<unknown>,
  ): Promise<T> {
    const ids = { taskId: attempt.taskId, attempt: attempt.attempt, phase: name }
    await recordPhase(deps.db, { ...ids, state: 'running' })
    try {
      if (attempt.signal.aborted) throw attempt.signal.reason
      const output = schema.parse(await body())
      await recordPhase(deps.db, { ...ids, state: 'completed', output: stored(name, output) })
      return output
    } catch (error) {
      failures.push({ phase: name, error })
      const message = deps.redact(error instanceof Error ? error.message : String(error))
      await recordPhase(deps.db, { ...ids, state: 'failed', error: message.slice(0, 4_000) })
      throw error
    }
  }

  const ask = async (
    which: 'research' | 'decide' | 'implement' | 'review',
    prompt: string,
    maxSteps: number,
  ) => {
    // The phase's own stop (a repeated call) alongside the attempt's (timeout, cancel, shutdown).
    const stop = new AbortController()
    let stopped: string | undefined
    const hooks = repeatBreaker((reason) => {
      stopped = reason
      stop.abort(new Error(reason))
    })
    const agent = phaseAgent({
      ...(deps.mastraLogger && { logger: deps.mastraLogger }),
      phase: which,
      models: deps.models,
      route: attempt.route,
      workTree: clone!.workTree,
      hooks,
    })
    const signal = AbortSignal.any([attempt.signal, stop.signal])
    const agentId = `self-update-${which}`
    // The cost cap as the run path applies it (cost-cap.ts): the phase agent's calls are not
    // agents of a prepared run, so the same step preparation wraps them here.
    const prepareStep = costCapped(
      () => undefined,
      attempt.budget,
      { agentId, agentName: `self-update ${which}`, model: () => attempt.route },
      {
        events: {
          emit: (event) => void (event.type === 'guard' && attempt.onGuard?.(event)),
        },
        run: {
          kind: 'task',
          runId: `${attempt.taskId}.a${attempt.attempt}`,
          traceId: '',
          workspaceId: attempt.workspaceId,
          taskId: attempt.taskId,
          attempt: attempt.attempt,
        },
      },
    )
    try {
      const result = await agent.generate(prompt, {
        maxSteps,
        abortSignal: signal,
        prepareStep,
        onStepFinish: (step: { usage?: Parameters<RunBudget['stepFinished']>[0] }) =>
          attempt.budget.stepFinished(step.usage, { agentId, model: attempt.route }),
      })
      if (attempt.budget.exhausted() === 'costUsd') {
        throw new Error(`${which} stopped: ${attempt.budget.endedMessage()}`)
      }
      if (stopped) throw new Error(`${which} stopped: ${stopped}`)
      return { text: result.text, steps: result.steps?.length ?? 0 }
    } catch (error) {
      if (attempt.budget.exhausted() === 'costUsd') {
        throw new Error(`${which} stopped: ${attempt.budget.endedMessage()}`, { cause: error })
      }
      if (stopped) throw new Error(`${which} stopped: ${stopped}`, { cause: error })
      throw error
    }
  }

  const prepare = createStep({
    id: 'prepare',
    inputSchema: z.object({}),
    outputSchema: PrepareOut,
    execute: () =>
      phase('prepare', PrepareOut, async () => {
        checkout = await requireCleanCheckout(attempt.repo)
        clone = await freshClone({ checkout, taskId: attempt.taskId, into: attempt.cloneDir })
        const ctx: Ctx = {
          taskId: attempt.taskId,
          goal: attempt.goal,
          repo: checkout.repo,
          baseSha: clone.baseSha,
          branch: clone.branch,
          workTree: clone.workTree,
          gitDir: clone.gitDir,
        }
        return { ctx }
      }),
  })

  const ResearchIn = z.object({
    ctx: Ctx,
    iterations: z.number().int().optional(),
    report: ResearchReport.optional(),
  })
  const research = createStep({
    id: 'research',
    inputSchema: ResearchIn,
    outputSchema: ResearchOut,
    execute: ({ inputData }) =>
      phase('research', ResearchOut, async () => {
        const iterations = (inputData.iterations ?? 0) + 1
        const earlier = inputData.report
          ? `\nYour findings so far:\n${JSON.stringify(inputData.report)}`
          : ''
        const { text } = await ask(
          'research',
          `Goal: ${inputData.ctx.goal}\nIteration ${iterations} of ${RESEARCH_ITERATIONS}.${earlier}`,
          RESEARCH_STEPS,
        )
        return {
          ctx: inputData.ctx,
          iterations,
          report: parseModelJson(ResearchReport, text, 'research'),
        }
      }),
  })

  const decide = createStep({
    id: 'decide',
    inputSchema: ResearchOut,
    outputSchema: DecideOut,
    execute: async ({ inputData, bail }) => {
      const out = await phase('decide', DecideOut, async () => {
        const { text } = await ask(
          'decide',
          `Goal: ${inputData.ctx.goal}\nResearch:\n${JSON.stringify(inputData.report)}`,
          1,
        )
        return { ctx: inputData.ctx, decision: parseModelJson(Decision, text, 'decide') }
      })
      if (out.decision.kind === 'noop') {
        for (const later of LATER_PHASES) {
          await recordPhase(deps.db, {
            taskId: attempt.taskId,
            attempt: attempt.attempt,
            phase: later,
            state: 'skipped',
          })
        }
        return bail(
          CommitOut.parse({
            outcome: 'noop',
            commitSha: null,
            ref: null,
            digest: null,
            reason: out.decision.reason,
          }),
        )
      }
      return out
    },
  })

  const implement = createStep({
    id: 'implement',
    inputSchema: DecideOut,
    outputSchema: ImplementOut,
    execute: ({ inputData }) =>
      phase('implement', ImplementOut, async () => {
        const { decision, ctx } = inputData
        if (decision.kind !== 'change') throw new Error('implement reached without a plan')
        const { text, steps } = await ask(
          'implement',
          `Goal: ${ctx.goal}\nPlan:\n${JSON.stringify(decision.plan)}`,
          IMPLEMENT_STEPS,
        )
        const report = parseModelJson(ImplementReport, text, 'implement')
        return { ctx, plan: decision.plan, stepsUsed: steps, summary: report.summary }
      }),
  })

  const inspect = createStep({
    id: 'inspect-change',
    inputSchema: ImplementOut,
    outputSchema: InspectOut,
    execute: ({ inputData }) =>
      phase('inspect-change', InspectOut, async () => {
        const change = await inspectChange(
          clone!,
          deps.protectedPaths ? { protectedPaths: deps.protectedPaths } : {},
        )
        return {
          ctx: inputData.ctx,
          plan: inputData.plan,
          treeSha: change.treeSha,
          digest: change.digest,
          files: change.files,
          patch: change.patch.toString('utf8'),
        }
      }),
  })

  const verify = createStep({
    id: 'verify',
    inputSchema: InspectOut,
    outputSchema: VerifyOut,
    execute: ({ inputData }) =>
      phase('verify', VerifyOut, async () => {
        const tree = await exportTree(clone!, inputData.treeSha, attempt.cloneDir)
        const checks = await runChecks({
          workTree: tree,
          commands: deps.verifyCommands,
          sandbox: deps.sandbox,
          limitMs: deps.checkLimitMs,
          redact: deps.redact,
        }).finally(() => rm(join(tree, '..'), { recursive: true, force: true }))
        const failed = checks.find((check) => !check.passed)
        if (failed)
          throw new Error(
            `verify: ${failed.id} exited ${failed.exitCode}:\n${failed.tail.slice(-2_000)}`,
          )
        // The clone must still hold exactly what was inspected and checked.
        const now = await currentDigest(clone!)
        if (now.digest !== inputData.digest)
          throw new Error('verify: the checks changed the files under review')
        return { ...inputData, checks, allPassed: true }
      }),
  })

  const review = createStep({
    id: 'review',
    inputSchema: VerifyOut,
    outputSchema: ReviewOut,
    execute: ({ inputData }) =>
      phase('review', ReviewOut, async () => {
        const { text } = await ask(
          'review',
          `Goal: ${inputData.ctx.goal}\nPlan: ${JSON.stringify(inputData.plan)}\n` +
            `Digest: ${inputData.digest}\nPatch:\n${inputData.patch}`,
          1,
        )
        const verdict = parseModelJson(Review, text, 'review')
        acceptReview(inputData.digest, verdict)
        if (deps.ownerReviewMs) {
          await ownerReview(deps.approvals, {
            taskId: attempt.taskId,
            runId: `${attempt.taskId}.a${attempt.attempt}`,
            goal: attempt.goal,
            summary: inputData.plan.summary,
            digest: inputData.digest,
            patch: inputData.patch,
            waitMs: deps.ownerReviewMs,
            bindingId: attempt.deliverToBindingId,
            signal: attempt.signal,
          })
        }
        return { ...inputData, review: verdict }
      }),
  })

  const commit = createStep({
    id: 'commit',
    inputSchema: ReviewOut,
    outputSchema: CommitOut,
    execute: ({ inputData }) =>
      phase('commit', CommitOut, async () => {
        const message = commitMessage({
          summary: inputData.plan.summary,
          taskId: attempt.taskId,
          digest: inputData.review.digest,
        })
        const reviewed = {
          digest: inputData.review.digest,
          treeSha: inputData.treeSha,
          message,
          createdAt: attempt.createdAt,
        }
        // The owner may have switched self-update off while this attempt ran.
        if (!(await Settings.autonomy.get(deps.db)).selfUpdateEnabled) {
          throw new Error('self-update was switched off in the autonomy settings; nothing imported')
        }
        const commitSha = await commitReviewed(clone!, reviewed)
        const imported = await importReviewed(checkout!, {
          ...reviewed,
          taskId: attempt.taskId,
          baseSha: inputData.ctx.baseSha,
          patch: Buffer.from(inputData.patch, 'utf8'),
          commitSha,
        })
        return {
          outcome: 'committed',
          commitSha: imported.commitSha,
          ref: imported.ref,
          digest: inputData.review.digest,
          reason: inputData.plan.summary,
        }
      }),
  })

  const workflow = createWorkflow({
    id: 'self-update',
    inputSchema: z.object({}),
    outputSchema: CommitOut,
    retryConfig: { attempts: 0 },
    options: { shouldPersistSnapshot: () => false, autoRestartActiveRuns: false },
  })
    .then(prepare)
    .dountil(research, async ({ inputData, iterationCount }) => {
      return inputData.report.done || iterationCount >= RESEARCH_ITERATIONS
    })
    .then(decide)
    .then(implement)
    .then(inspect)
    .then(verify)
    .then(review)
    .then(commit)
    .commit()

  // Otherwise Mastra prints a failed step, error and all, to the console.
  if (deps.mastraLogger) workflow.__setLogger(deps.mastraLogger)
  return { workflow, failures, clonePath: () => (clone ? join(clone.workTree, '..') : undefined) }
}

// Stored as JSON. The patch is kept once, with inspect-change, where the task page shows it with
// its digest; the later phases carry it along in memory only.
function stored(phase: WorkflowPhase, output: Record<string, unknown>): Record<string, unknown> {
  const { patch, ...rest } = output
  const kept = phase === 'inspect-change' || patch === undefined ? output : rest
  return JSON.parse(JSON.stringify(kept)) as Record<string, unknown>
}
