import type { AgentExecutionOptions } from '@mastra/core/agent'
import type { AgentRuntimeSettings } from '../../runtime/contracts/settings.ts'
import { createRunContext } from '../agents/run-context.ts'
import { MEMORY_RESOURCE_ID } from '../memory/thread-memory.ts'
import type { RunBudget } from './budget.ts'
import { costCapped } from './cost-cap.ts'
import { delegationConfig } from './delegation.ts'
import { reserveFinalStep } from './final-step.ts'
import { withBrief, type Preflight } from './preflight.ts'
import { withRecall } from '../recall/with-recall.ts'
import type { RecallOutcome } from '../recall/recall.ts'
import type { RunEvents, RunRef, TokenUsage } from './run-events.ts'
import type { UsageMeter } from './usage.ts'

export type StepUsage = {
  inputTokens?: number | undefined
  outputTokens?: number | undefined
  cachedInputTokens?: number | undefined
}

// The loop's step result type is not exported; take it from the execution options.
type SupervisorStep = Parameters<NonNullable<AgentExecutionOptions['onStepFinish']>>[0]

export function supervisorOptions(run: {
  run: RunRef
  events: RunEvents
  budget: RunBudget
  supervisor: { agentId: string; agentName: string }
  settings: AgentRuntimeSettings
  route: string
  agents: Record<string, { name: string; model: string }>
  workspaceRoot: string | undefined
  workspaceId?: string | null | undefined
  briefing: Promise<Preflight | undefined>
  recalling: Promise<RecallOutcome | undefined>
  usage: UsageMeter
  thread: string
  signal: AbortSignal
}) {
  const { settings, events, budget } = run
  const supervisorId = run.supervisor.agentId
  let step = 0
  return {
    memory: { thread: run.thread, resource: MEMORY_RESOURCE_ID },
    requestContext: createRunContext({
      modelRoute: run.route,
      settings,
      ...(run.workspaceRoot && { workspaceRoot: run.workspaceRoot }),
      ...(run.workspaceId && { workspaceId: run.workspaceId }),
      run: {
        turnId: run.run.runId,
        ...(run.run.sessionId && { sessionId: run.run.sessionId }),
        ...(run.run.taskId && { taskId: run.run.taskId }),
      },
    }),
    abortSignal: run.signal,
    maxSteps: settings.supervisorMaxSteps,
    // The cost cap decides last, on the step as the others made it (brief, recall, final step).
    prepareStep: costCapped(
      withBrief(
        run.briefing,
        withRecall(
          run.recalling,
          reserveFinalStep(
            () => settings.supervisorMaxSteps,
            () => settings.finalResponseFeedback,
            (step) => budget.answeringStep(supervisorId, step),
          ),
        ),
      ),
      budget,
      { ...run.supervisor, model: () => run.route },
      { events, run: run.run },
    ),
    // A model that asks for tools on its answering step anyway still stops there.
    stopWhen: ({ steps }: { steps: readonly unknown[] }) =>
      budget.answered(supervisorId, steps.length),
    toolCallConcurrency: { limit: settings.toolCallConcurrency, strategy: 'called' as const },
    maxProcessorRetries: settings.processorRetries,
    delegation: delegationConfig({
      settings,
      events,
      run: run.run,
      usage: run.usage,
      agents: run.agents,
    }),
    onStepFinish: (result: SupervisorStep) => {
      budget.stepFinished((result as { usage?: StepUsage }).usage, {
        agentId: supervisorId,
        model: run.route,
      })
      events.emit({
        type: 'step',
        run: run.run,
        ...run.supervisor,
        step: ++step,
        maxSteps: settings.supervisorMaxSteps,
        finishReason: result.finishReason ?? null,
        text: result.text,
        toolCalls: result.toolCalls.map((call) => ({
          tool: call.payload.toolName,
          arguments: call.payload.args,
        })),
        usage: (result as { usage?: TokenUsage }).usage,
      })
    },
  }
}
