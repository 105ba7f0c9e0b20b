import { prepareAgentRun, type AgentRunDeps } from '../agents/agent-run.ts'
import { createActivityLog } from '../chat/activity.ts'
import { createUsageMeter } from '../chat/usage.ts'
import type { TaskExecutor } from './runner.ts'
import { TaskFailure } from './failure-policy.ts'

/** A Mastra processor stopped the run; see `classifyError` for how its reason is read. */
export class ProcessorTripwire extends Error {
  constructor(processorId: string | undefined, reason: string) {
    super(`the run was stopped by processor ${processorId ?? '(unnamed)'}: ${reason}`)
    this.name = 'ProcessorTripwire'
  }
}

const STEP_TEXT_CHARS = 4_000

/**
 * Ordinary task work (T10): the task's prompt goes to the supervisor through the same run
 * preparation as a chat turn (settings snapshot, repository brief, agents from PostgreSQL,
 * delegation and tool hooks, recall, step bounds, final-response guard). The memory thread is
 * the task's session when it has one, otherwise one thread per task.
 *
 * The transcript gets one record per supervisor step (step bounds, finish state, model text and
 * its tool calls) and one per finished tool call or delegation of any agent (arguments, result or
 * error, status), all redacted by the runner before they are stored.
 */
export function createAgentExecutor(deps: AgentRunDeps): TaskExecutor {
  return async (task, context) => {
    const usage = createUsageMeter()
    const activity = createActivityLog({
      emit: (part) => {
        if (part.data.status === 'running') return
        void context.record({ ...part.data })
      },
      redact: deps.redact,
    })
    const run = await prepareAgentRun(deps, {
      workspaceId: task.workspaceId,
      query: task.prompt,
      model: task.model,
      activity,
      usage,
      signal: context.signal,
    })
    const supervisor = { id: run.team.supervisor.id, name: run.team.supervisor.name }
    let step = 0
    // An error Mastra reports only through the callback (a memory processor that met a restarting
    // database, a step that failed mid-stream): the stream then ends with no text and no `error`,
    // and the attempt must fail with this error, classified, rather than as an unexplained
    // empty answer.
    let streamError: unknown
    try {
      if (run.preflight) void context.record({ kind: 'repo-brief', text: run.preflight.text })
      const output = await run.team.supervisor.stream([{ role: 'user', content: task.prompt }], {
        ...run.options({ thread: task.sessionId ?? `task-${task.id}`, signal: context.signal }),
        onError: ({ error }) => {
          streamError ??= error
        },
        onStepFinish: (result) => {
          step += 1
          void context.record({
            kind: 'step',
            agentId: supervisor.id,
            agentName: supervisor.name,
            step,
            maxSteps: run.settings.supervisorMaxSteps,
            finishReason: result.finishReason ?? null,
            text: result.text.slice(0, STEP_TEXT_CHARS),
            toolCalls: result.toolCalls.map((call) => ({
              tool: call.payload.toolName,
              arguments: call.payload.args,
            })),
          })
        },
      })
      const text = await output.text
      if (context.signal.aborted) throw context.signal.reason
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
      usage.add(run.route, await output.totalUsage)
      void context.record({ kind: 'usage', byModel: usage.snapshot() })
      return { result: text }
    } finally {
      await run.team.dispose()
    }
  }
}
