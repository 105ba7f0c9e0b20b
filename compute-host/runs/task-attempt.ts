import * as Tasks from '../../runtime/tasks/index.ts'
import type { AttemptContext, TaskExecutor } from '../tasks/runner.ts'
import { TaskFailure } from '../tasks/failure-policy.ts'
import { BROKEN_CALL_RECORD, brokenCallsOf } from '../tasks/sql/broken-calls.ts'
import { remediationTools } from '../tools/remediation-tools.ts'
import { createActivityLog } from './activity.ts'
import { prepareRun, type RunDeps } from './prepare-run.ts'
import type { RunObserver } from './run-events.ts'
import { describeRunError } from './run-errors.ts'
import { createUsageMeter } from './usage.ts'

/** A Mastra processor stopped the run; see `classifyError` for how its reason is read. */
export class ProcessorTripwire extends Error {
  constructor(processorId: string | undefined, reason: string) {
    super(`the run was stopped by processor ${processorId ?? '(unnamed)'}: ${reason}`)
    this.name = 'ProcessorTripwire'
  }
}

const STEP_TEXT_CHARS = 4_000
const SELF_UPDATE_REMEDIATION =
  'a self-update remediation works from the task evidence only; repository changes go through a new self-update run'

/**
 * The task driver of the run path (T10): the task's prompt goes to the supervisor through the
 * same run preparation as a chat turn (settings snapshot, repository brief, agents from
 * PostgreSQL, delegation and tool hooks, recall, step bounds, final-response guard, run events).
 * The memory thread is the task's session when it has one, otherwise one thread per task.
 */
export function createTaskAttempts(
  hostDeps: RunDeps,
  options: {
    /** More observers of each attempt's run (build-maintenance records its evidence so). */
    observers?: (task: Tasks.TaskRow, context: AttemptContext) => RunObserver[]
  } = {},
): TaskExecutor {
  return async (task, context) => {
    // Every line the attempt logs names its trace, so the trace finds them (log-forwarder.ts).
    const deps = { ...hostDeps, log: hostDeps.log.child({ traceId: context.traceId }) }
    const usage = createUsageMeter()
    // TaskStart is a gate, not an observer: a deny (or a failing hook) ends the attempt before
    // anything runs, as `hook-denied`, which is never retried.
    if (deps.hooks) {
      const verdict = await deps.hooks.dispatch({
        event: 'TaskStart',
        scope: {
          taskId: task.id,
          runId: context.turnId,
          workspaceId: task.workspaceId,
          ...(task.sessionId && { sessionId: task.sessionId }),
        },
        data: { prompt: task.prompt, attempt: context.attempt, kind: task.kind },
      })
      if (verdict.decision === 'deny') {
        throw new TaskFailure('hook-denied', `a TaskStart hook denied the task: ${verdict.reason}`)
      }
    }
    // Steps are recorded with the budget used so far (the task page shows it as the run goes).
    let budgetNow = (): unknown => undefined
    // A remediation does not repeat the calls that broke its parent (or its own earlier attempts).
    const carried =
      task.kind === 'remediation' && task.parentTaskId
        ? await brokenCallsOf(deps.db, [task.parentTaskId, task.id])
        : undefined
    const run = await prepareRun(deps, {
      run: {
        kind: 'task',
        runId: context.turnId,
        traceId: context.traceId,
        taskId: task.id,
        attempt: context.attempt,
        ...(task.sessionId && { sessionId: task.sessionId }),
      },
      workspaceId: task.workspaceId,
      query: task.prompt,
      model: task.model,
      usage,
      observers: [
        transcriptOf(context, deps.redact, () => budgetNow()),
        ...(options.observers?.(task, context) ?? []),
      ],
      signal: context.signal,
      budget: { overrides: task.budget, used: task.budgetUsed, unattended: true },
      loopBreaker: {
        ...(carried && { carried }),
        // Kept in the transcript as a digest with why, for a remediation to refuse.
        onBroken: (call) => void context.record({ kind: BROKEN_CALL_RECORD, ...call }),
      },
      // Self-update work changes a repository only inside its contained workflow: its remediation
      // reads evidence and resolves, and never gets the owner's checkout to write in.
      ...(task.source === 'self-update' && { withoutRepository: SELF_UPDATE_REMEDIATION }),
      // A remediation reads and resolves its own parent through tools, never through the CLI.
      ...(task.kind === 'remediation' &&
        task.parentTaskId && { supervisorTools: remediationTools(deps.db, task.parentTaskId) }),
    })
    budgetNow = () => run.budget.snapshot()
    // An error Mastra reports only through the callback (a memory processor that met a restarting
    // database, a step that failed mid-stream): the stream then ends with no text and no `error`,
    // and the attempt must fail with this error, classified, rather than as an unexplained
    // empty answer.
    let streamError: unknown
    try {
      const output = await run.team.supervisor.stream([{ role: 'user', content: task.prompt }], {
        ...run.options({ thread: task.sessionId ?? `task-${task.id}`, signal: context.signal }),
        onError: ({ error }) => {
          streamError ??= error
        },
      })
      const text = await output.text
      if (context.signal.aborted) throw context.signal.reason
      // A denied tool call is final for the task too: the attempt fails once, never retried.
      const denial = run.hookDenial()
      if (denial)
        throw new TaskFailure('hook-denied', `a PreToolUse hook denied a tool call: ${denial}`)
      // The cost cap refused a call: the loop ended there (a tripwire); the tree's cap is final.
      if (run.budget.exhausted() === 'costUsd') {
        const budget = run.budget.snapshot()
        void context.record({ kind: 'budget', ...budget, answer: text.slice(0, STEP_TEXT_CHARS) })
        throw new TaskFailure('budget-exhausted', run.budget.endedMessage() ?? 'the cost cap')
      }
      if (output.error) throw output.error
      // A processor that failed (observational memory meeting a restarting database) or refused
      // the run ends the stream through a tripwire, with no text and no error: its reason is the
      // only evidence of which, and the classifier reads outages from it.
      const tripwire = output.tripwire
      if (tripwire) throw new ProcessorTripwire(tripwire.processorId, tripwire.reason)
      if (!text.trim()) {
        if (streamError) throw streamError
        throw new TaskFailure('unknown', 'the supervisor finished without a final answer')
      }
      usage.add(run.route, await output.totalUsage, run.team.supervisor.id)
      void context.record({ kind: 'usage', byModel: usage.snapshot() })
      const budget = run.budget.snapshot()
      if (budget.exhausted) {
        // The answer the budget allowed stays in the transcript; the task itself failed.
        void context.record({ kind: 'budget', ...budget, answer: text.slice(0, STEP_TEXT_CHARS) })
        throw new TaskFailure('budget-exhausted', run.budget.endedMessage() ?? 'the budget ended')
      }
      await run.end('completed')
      return { result: text }
    } catch (error) {
      const aborted = context.signal.aborted
      await run.end(
        aborted ? 'aborted' : 'failed',
        aborted ? undefined : describeRunError(error, deps.redact),
      )
      throw error
    } finally {
      // The tree's running total, whatever the outcome: the next attempt or a remediation goes on
      // from here.
      await Tasks.recordBudgetUsed(deps.db, task.id, run.budget.snapshot().used).catch((error) =>
        deps.log.warn('could not record the task budget used', { taskId: task.id, error }),
      )
    }
  }
}

/**
 * The task's transcript as a run observer: one record per supervisor step (step bounds, finish
 * state, model text and its tool calls), one per finished tool call or delegation of any agent
 * (arguments, result or error, status), and the preflight brief; all redacted by the runner
 * before they are stored.
 */
function transcriptOf(
  context: AttemptContext,
  redact: (text: string) => string,
  budget: () => unknown = () => undefined,
): RunObserver {
  const activity = createActivityLog({
    emit: (part) => {
      if (part.data.status === 'running') return
      void context.record({ ...part.data })
    },
    redact,
  })
  return (event) => {
    switch (event.type) {
      case 'brief':
        return void context.record({ kind: 'repo-brief', text: event.text })
      case 'step':
        return void context.record({
          kind: 'step',
          budget: budget(),
          agentId: event.agentId,
          agentName: event.agentName,
          step: event.step,
          maxSteps: event.maxSteps,
          finishReason: event.finishReason,
          text: event.text.slice(0, STEP_TEXT_CHARS),
          toolCalls: event.toolCalls,
        })
      default:
        return activity.observe(event)
    }
  }
}
