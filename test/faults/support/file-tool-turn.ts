/**
 * Runs the implementer's file tools through a real chat turn: the orchestrator delegates to the
 * implementer, which makes the scripted tool calls step by step (the calls of one step together,
 * as a model asking for several tools at once), then answers. In-process host, real edge over
 * HTTP, scripted gateway (as test/workspace-tools.e2e.test.ts does it). The turn runs under a
 * deadline, and every tool call's activity seen so far comes back even when it is not met, so a
 * hang is reported with what did and did not finish.
 */
import { createSession, createWorkspace } from '../../support/api-fixtures.ts'
import { markRoles, postChat, roleOf, toolResultsOf } from '../../support/chat.ts'
import { startTestStack, type TestStack } from '../../support/stack.ts'
import { readUiStream } from '../../support/ui-stream.ts'

export type ToolCall = { name: string; arguments: Record<string, unknown> }

export type ToolActivity = {
  tool: string
  status: string
  input: Record<string, unknown>
  output?: unknown
  error?: string
  durationMs?: number
}

export type FileToolTurn = {
  /** Whether the turn ended before the deadline. */
  finished: boolean
  ms: number
  /** The implementer's tool calls in the order they were made, with their last status. */
  calls: ToolActivity[]
}

/** A stack whose workspace root holds the repository `proj`, agents marked for the script. */
export async function startFileToolStack(root: string, shellTimeoutMs = 20_000) {
  const stack = await startTestStack({
    models: [{ id: 'remote/a' }],
    hostEnv: { POPAGENT_WORKSPACE_ROOT: root, POPAGENT_SHELL_TIMEOUT_MS: String(shellTimeoutMs) },
  })
  await markRoles(stack, ['orchistrator', 'implementer'])
  const workspaceId = await createWorkspace(stack.edge(), 'proj')
  const url = await stack.listen()
  return { stack, url, workspaceId }
}

/** One turn in which the implementer makes `steps` of tool calls, then says it is done. */
export async function runFileToolTurn(
  target: { stack: TestStack; url: string; workspaceId: string },
  steps: ToolCall[][],
  deadlineMs: number,
): Promise<FileToolTurn> {
  const { stack, url, workspaceId } = target
  const sessionId = await createSession(stack.edge(), workspaceId)
  // Tool results so far decide the step: a step's calls all answer before the next request.
  const stepAfter = (done: number) => {
    let seen = 0
    for (const [i, step] of steps.entries()) {
      if (done === seen) return i
      seen += step.length
    }
    return steps.length
  }
  stack.gateway.respondWith((r) => {
    if (roleOf(r) === 'orchistrator') {
      return toolResultsOf(r).length === 0
        ? { toolCalls: [{ name: 'agent-implementer', arguments: { prompt: 'work on files' } }] }
        : { text: 'done' }
    }
    if (roleOf(r) !== 'implementer') return { text: 'n/a' }
    const step = steps[stepAfter(toolResultsOf(r).length)]
    return step ? { toolCalls: step } : { text: 'finished' }
  })
  const activity = new Map<string, ToolActivity>()
  const abort = new AbortController()
  const timer = setTimeout(() => abort.abort(), deadlineMs)
  const started = performance.now()
  let finished = false
  try {
    const response = await postChat(
      url,
      { sessionId, workspaceId, model: 'remote/a', text: 'Work on the files' },
      abort.signal,
    )
    await readUiStream(response, (chunk) => {
      if (
        chunk.type === 'data-agentActivity' &&
        chunk.data?.kind === 'tool' &&
        chunk.data.agentId === 'implementer'
      ) {
        const data = chunk.data
        activity.set(chunk.id, {
          tool: data.tool,
          status: data.status,
          input: typeof data.input === 'string' ? JSON.parse(data.input) : data.input,
          output: data.output,
          error: data.error,
          durationMs: data.durationMs,
        })
      }
    })
    finished = true
  } catch (error) {
    if (!abort.signal.aborted) throw error
  } finally {
    clearTimeout(timer)
    stack.gateway.respondWith(undefined)
  }
  return { finished, ms: Math.round(performance.now() - started), calls: [...activity.values()] }
}
