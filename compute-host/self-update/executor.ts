import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as Settings from '../../runtime/settings/index.ts'
import * as Tasks from '../../runtime/tasks/index.ts'
import * as Workspaces from '../../runtime/workspaces/index.ts'
import { AppError } from '../../runtime/errors.ts'
import type { Logger } from '../log.ts'
import { repositoryOf } from '../runs/preflight.ts'
import { createRunBudget, limitsFrom } from '../runs/budget.ts'
import { NO_PRICES } from '../runs/cost-cap.ts'
import type { RunDeps } from '../runs/prepare-run.ts'
import { TaskFailure } from '../tasks/error-classes.ts'
import type { TaskExecutor } from '../tasks/runner.ts'
import { deployStep } from './deploy-step.ts'
import { selfUpdateWorkflow, type SelfUpdateDeps } from './workflow.ts'

// Refusals of the containment and the review: the same input meets the same rule again.
const CONTAINMENT = new Set([
  'CHECKOUT_DIRTY',
  'CHECKOUT_UNUSABLE',
  'PATCH_POLICY_REFUSED',
  'PATCH_LIMIT_EXCEEDED',
  'TOOL_POLICY_REFUSED',
  'COMMAND_POLICY_REFUSED',
  'PATCH_CHANGED_AFTER_REVIEW',
  'SELF_UPDATE_IMPORT_REFUSED',
  'SELF_UPDATE_BRANCH_INVALID',
])
const SELF_UPDATE_OFF = 'self-update is off in the autonomy settings (selfUpdateEnabled)'
const REVIEW = new Set(['REVIEW_DIGEST_MISMATCH', 'REVIEW_NOT_APPROVED'])

/**
 * Runs a `self-update` task's attempt through the self-update workflow in a fresh clone (run id
 * `<task>.a<attempt>`), then removes the clone: what remains is the phases' evidence and, for an
 * approved change, the local ref in the owner's repository. A containment or review refusal is a
 * permanent failure; a model or gateway error is classified like any other attempt's.
 */
export function createSelfUpdateExecutor(
  deps: Pick<RunDeps, 'db' | 'workspaceRoot' | 'log'> & Omit<SelfUpdateDeps, 'db'>,
): TaskExecutor {
  return async (task, context) => {
    const log: Logger = deps.log.child({ taskId: task.id, attempt: context.attempt })
    const workspace = await Workspaces.get(deps.db, task.workspaceId)
    const { root, missing } = await repositoryOf({ ...deps, log }, workspace)
    if (!root) throw new TaskFailure('configuration', missing ?? 'the workspace has no repository')
    if (!(await Settings.autonomy.get(deps.db)).selfUpdateEnabled) {
      throw new TaskFailure('configuration', SELF_UPDATE_OFF)
    }
    const settings = await Settings.agentRuntime.get(deps.db)
    // Unattended work: the task tree's budget from the unattended cost cap, carried across its
    // attempts (`budgetUsed`), so the phase agents' calls stop before one could pass it.
    const budget = createRunBudget(limitsFrom(settings, task.budget, true), {
      used: task.budgetUsed,
      prices: await (deps.prices?.() ?? NO_PRICES),
    })
    const cloneDir = await mkdtemp(
      join(tmpdir(), `popagent-self-update-${task.id}.a${context.attempt}-`),
    )
    const { workflow, failures } = selfUpdateWorkflow(
      { ...deps, db: deps.db },
      {
        taskId: task.id,
        attempt: context.attempt,
        createdAt: task.createdAt,
        goal: task.prompt,
        repo: root,
        route: task.model ?? settings.effectiveDefaultModel,
        cloneDir,
        signal: context.signal,
        workspaceId: task.workspaceId,
        deliverToBindingId: task.deliverToBindingId,
        budget,
        onGuard: (event) =>
          void context.record({
            kind: 'guard',
            guard: event.guard,
            agentId: event.agentId,
            message: event.message,
          }),
      },
    )
    try {
      const run = await workflow.createRun({ runId: `${task.id}.a${context.attempt}` })
      const result = await run.start({ inputData: {} })
      if (result.status === 'success') {
        const out = result.result
        const done =
          out.outcome === 'noop'
            ? `No change: ${out.reason}`
            : `Committed ${out.commitSha} as ${out.ref} (patch digest ${out.digest}): ${out.reason}`
        const deploy = await deployStep(deps.db, { taskId: task.id, attempt: context.attempt }, out)
        return { result: deploy ? `${done}\n${deploy}` : done }
      }
      const failure = failures.at(-1)
      if (context.signal.aborted) throw context.signal.reason
      // The cap is final for the tree: no retry, no remediation (failure-policy.ts).
      if (budget.exhausted() === 'costUsd') {
        throw new TaskFailure('budget-exhausted', budget.endedMessage() ?? 'the cost cap')
      }
      throw failureOf(failure, result.status === 'failed' ? result.error : undefined)
    } finally {
      await Tasks.recordBudgetUsed(deps.db, task.id, budget.snapshot().used).catch((error) =>
        log.warn('could not record the task budget used', { error }),
      )
      await rm(cloneDir, { recursive: true, force: true }).catch((error: unknown) =>
        log.warn('could not remove the self-update clone', { cloneDir, error }),
      )
    }
  }
}

/**
 * The runner's one executor: a self-update task's own attempts go through the workflow, everything
 * else (user work, and for now remediations, which run the ordinary task path) through `other`.
 */
export function selfUpdateOr(selfUpdate: TaskExecutor, other: TaskExecutor): TaskExecutor {
  return (task, context) =>
    task.source === 'self-update' && task.kind !== 'remediation'
      ? selfUpdate(task, context)
      : other(task, context)
}

function failureOf(
  failure: { phase: string; error: unknown } | undefined,
  fallback: unknown,
): unknown {
  const error = failure?.error ?? fallback
  if (error instanceof AppError && CONTAINMENT.has(error.code)) {
    return new TaskFailure('containment', `${failure?.phase}: ${error.code}: ${error.message}`, {
      cause: error,
    })
  }
  if (error instanceof AppError && REVIEW.has(error.code)) {
    return new TaskFailure('validation', `${failure?.phase}: ${error.code}: ${error.message}`, {
      cause: error,
    })
  }
  if (
    error instanceof Error &&
    / phase('s answer| answered prose)| stopped: /.test(error.message)
  ) {
    return new TaskFailure('validation', `${failure?.phase}: ${error.message}`, { cause: error })
  }
  if (failure?.phase === 'verify') {
    return new TaskFailure(
      'validation',
      `verify: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    )
  }
  return error ?? new TaskFailure('unknown', 'the self-update workflow ended without a result')
}
