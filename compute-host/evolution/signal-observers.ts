import type { Db } from '../../db/index.ts'
import type { FailureClass } from '../../db/evolution-enums.ts'
import { SUPERVISOR_AGENT_ID } from '../../runtime/agents/supervisor.ts'
import { recordRun } from '../../runtime/evolution/runs.ts'
import { recordSignal, type SignalInput } from '../../runtime/evolution/signals.ts'
import type { Logger } from '../log.ts'
import type { RunEvent, RunObserver } from '../runs/run-events.ts'
import type { ErrorClass } from '../tasks/failure-policy.ts'
import type { TaskObserver } from '../tasks/lifecycle.ts'
import { correctionOf, readsAsCorrection, sessionGoal, taskGoal } from './goal.ts'

type Deps = { db: Db; log: Logger; redact: (text: string) => string }

/**
 * Task failure classes that say something about how the agent worked. The rest (a provider or
 * database outage, an interrupted runner, a cancel, a stale claim, configuration) are the
 * infrastructure's or the owner's, and teach the agent nothing.
 */
const AGENT_FAILURES: Partial<Record<ErrorClass, FailureClass>> = {
  timeout: 'timeout',
  'hook-denied': 'policy-denied',
  'budget-exhausted': 'budget-exhausted',
  validation: 'task-error',
  permission: 'task-error',
  containment: 'task-error',
  unknown: 'task-error',
}

async function record(deps: Deps, input: SignalInput) {
  try {
    await recordSignal(deps.db, input, deps.redact)
  } catch (error) {
    // Best effort, as every observer: a lost signal never fails the run it came from.
    deps.log.warn('evolution signal not recorded', { kind: input.kind, error })
  }
}

/**
 * Signals from the task lifecycle: a user task's final failure (`task-failed`), and a remediation
 * that completed (`task-remediated`: the parent's goal, and what fixed it). Self-update and Build
 * tasks run their own fixed workflows and are not evolution's to learn from.
 */
export function taskSignals(deps: Deps): TaskObserver {
  return async (event) => {
    if (event.task.source !== 'user') return
    if (event.type === 'TaskStop' && event.outcome === 'failed' && !event.willRetry) {
      const failureClass = event.error && AGENT_FAILURES[event.error.class]
      if (!failureClass) return
      await record(deps, {
        agentId: SUPERVISOR_AGENT_ID,
        kind: 'task-failed',
        failureClass,
        traceId: event.traceId,
        sessionId: event.task.sessionId,
        goal: event.task.prompt,
        result: { failure: event.error?.message ?? 'failed' },
        subject: event.task.prompt,
      })
    }
    if (
      event.type === 'TaskStop' &&
      event.outcome === 'completed' &&
      event.task.kind === 'remediation' &&
      event.task.parentTaskId
    ) {
      const goal = (await taskGoal(deps.db, event.task.parentTaskId)) ?? event.task.prompt
      await record(deps, {
        agentId: SUPERVISOR_AGENT_ID,
        kind: 'task-remediated',
        failureClass: 'task-error',
        traceId: event.traceId,
        sessionId: event.task.sessionId,
        goal,
        result: { outcome: event.result ?? 'remediated' },
        subject: goal,
      })
    }
  }
}

const GUARDS = {
  loop: { kind: 'loop-stop', failureClass: 'repeated-call' },
  budget: { kind: 'budget-stop', failureClass: 'budget-exhausted' },
  hook: { kind: 'hook-deny', failureClass: 'policy-denied' },
} as const

/**
 * Signals from runs: a loop broken, a budget ended (in a chat turn; a task's is its failure), a
 * hook's denial, and a chat turn whose message corrects the answer before it. Every run that
 * ends is also recorded for the supervisor and each specialist it delegated to (runs.ts), so a
 * learned change can be measured by a failure rate. The goal is what the stopped agent was asked: its delegation's prompt, or the
 * task's prompt, or the session's newest user message.
 */
export function runSignals(deps: Deps): RunObserver {
  const delegated = new Map<string, Map<string, string>>()
  // Chat turns whose message reads as a correction: only their end reads the session's messages.
  const correcting = new Set<string>()
  return async (event: RunEvent) => {
    const runId = event.run.runId
    if (event.type === 'run-start') {
      if (event.run.kind === 'chat' && readsAsCorrection(event.request)) correcting.add(runId)
      return
    }
    if (event.type === 'delegation-start') {
      const prompts = delegated.get(runId) ?? new Map<string, string>()
      prompts.set(event.agentId, event.prompt)
      delegated.set(runId, prompts)
      return
    }
    if (event.type === 'run-end') {
      const agents = [SUPERVISOR_AGENT_ID, ...(delegated.get(runId)?.keys() ?? [])]
      delegated.delete(runId)
      // Every run counts, the ones that went well too: learned changes are measured by rates.
      await recordRun(deps.db, event.run.traceId, agents).catch((error: unknown) =>
        deps.log.warn('evolution run not recorded', { error }),
      )
      // The turn is saved before its run ends: its message and the one before it are there.
      if (!correcting.delete(runId) || !event.run.sessionId) return
      const corrected = await correctionOf(deps.db, event.run.sessionId)
      if (!corrected) return
      return record(deps, {
        agentId: SUPERVISOR_AGENT_ID,
        kind: 'user-correction',
        failureClass: 'misunderstood-request',
        traceId: event.run.traceId,
        sessionId: event.run.sessionId,
        goal: corrected.goal,
        result: { outcome: `the user corrected the answer: ${corrected.correction}` },
        subject: corrected.goal,
      })
    }
    if (event.type !== 'guard' || event.guard === 'delegation') return
    if (event.guard === 'budget' && event.run.kind === 'task') return
    const { kind, failureClass } = GUARDS[event.guard]
    const goal =
      delegated.get(runId)?.get(event.agentId) ||
      (event.run.taskId && (await taskGoal(deps.db, event.run.taskId))) ||
      (event.run.sessionId && (await sessionGoal(deps.db, event.run.sessionId))) ||
      '(not recorded)'
    await record(deps, {
      agentId: event.agentId,
      kind,
      failureClass,
      traceId: event.run.traceId,
      sessionId: event.run.sessionId ?? null,
      goal,
      result: { failure: `${event.tool}: ${event.message}` },
      subject: `${event.tool} ${event.guard === 'budget' ? '' : event.message}`,
    })
  }
}

/** A thumbs-down on an answer (`POST /api/observability/feedback`) is a signal about its turn. */
export async function feedbackSignal(
  deps: Deps,
  feedback: { traceId: string; value: 'up' | 'down'; comment?: string; sessionId?: string },
): Promise<void> {
  if (feedback.value !== 'down') return
  const goal = (feedback.sessionId && (await sessionGoal(deps.db, feedback.sessionId))) || ''
  await record(deps, {
    agentId: SUPERVISOR_AGENT_ID,
    kind: 'negative-feedback',
    failureClass: 'unhelpful-answer',
    traceId: feedback.traceId,
    sessionId: feedback.sessionId ?? null,
    goal: goal || '(the turn’s request)',
    result: {
      outcome: `the owner marked the answer unhelpful${feedback.comment ? `: ${feedback.comment}` : ''}`,
    },
    subject: goal || feedback.traceId,
  })
}
