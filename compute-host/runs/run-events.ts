import type { Logger } from '../log.ts'

/**
 * Which run an event belongs to. A chat turn and a task attempt are both runs of the supervisor
 * and its specialists; `runId` is the turn id (a task attempt has one too) and `traceId` the
 * trace both report in their metadata.
 */
export type RunRef = {
  kind: 'chat' | 'task'
  runId: string
  traceId: string
  workspaceId: string
  sessionId?: string
  taskId?: string
  attempt?: number
  /** The edge's request id of the request that started the run (a chat turn's). */
  requestId?: string
}

/** Tokens one model call (a step) or one delegation used, as the gateway reported them. */
export type TokenUsage = {
  inputTokens?: number | undefined
  outputTokens?: number | undefined
  cachedInputTokens?: number | undefined
}

/** The agent an event is about: the supervisor or the specialist it delegated to. */
export type RunAgent = { agentId: string; agentName: string }

/**
 * What a run reports while it goes, the same for every driver (chat turn, task attempt, a channel
 * turn later). Start and end events of one tool call or delegation share `callId`. Payloads are
 * raw: an observer that stores or sends them bounds and redacts them (the activity log does).
 */
export type RunEvent =
  | {
      type: 'run-start'
      run: RunRef
      model: string
      /** The request's text as the run got it (redacted): a chat turn's message, a task's prompt. */
      request: string
      /** When preparation began (epoch ms), and what each phase of it took (ms). */
      preparation: { startedAt: number; phases: Readonly<Record<string, number>> }
    }
  /** The preflight repository brief, prepared for the supervisor before its first step. */
  | ({
      type: 'brief'
      run: RunRef
      query: string
      text: string
      /** How long it took; it is built beside the run's other preparation. */
      durationMs: number
    } & RunAgent)
  /** Cross-session recall (X2): what was injected before the supervisor's first step, and how. */
  | ({
      type: 'recall'
      run: RunRef
      query: string
      mode: 'hybrid' | 'full-text'
      /** Why the vector leg was not used (embeddings failed), when it was meant to be. */
      note?: string
      items: Array<{
        itemId: string
        kind: string
        provenance: string
        score: number
        text: string
      }>
      durationMs: number
    } & RunAgent)
  | ({ type: 'tool-start'; run: RunRef; callId: string; tool: string; input: unknown } & RunAgent)
  | ({
      type: 'tool-end'
      run: RunRef
      callId: string
      tool: string
      output?: unknown
      error?: unknown
    } & RunAgent)
  | ({ type: 'delegation-start'; run: RunRef; callId: string; prompt: string } & RunAgent)
  | ({
      type: 'delegation-end'
      run: RunRef
      callId: string
      output?: string
      error?: unknown
      /** The specialist's model and what it used over the delegation. */
      model?: string
      usage?: TokenUsage
    } & RunAgent)
  | ({
      type: 'step'
      run: RunRef
      step: number
      maxSteps: number
      finishReason: string | null
      text: string
      toolCalls: Array<{ tool: string; arguments: unknown }>
      /** What this step's model call used. */
      usage?: TokenUsage
    } & RunAgent)
  /** A guard stopped a call: the budget ended, a loop was broken, delegation is off, or a hook denied it. */
  | ({
      type: 'guard'
      run: RunRef
      guard: 'budget' | 'loop' | 'delegation' | 'hook'
      tool: string
      message: string
    } & RunAgent)
  | {
      type: 'run-end'
      run: RunRef
      status: 'completed' | 'failed' | 'aborted'
      error?: string
    }

/**
 * Hears every event of a run. Called synchronously in event order; a returned promise is not
 * awaited (the run never waits for an observer), and a throw or rejection is logged and changes
 * nothing else.
 */
export type RunObserver = (event: RunEvent) => void | Promise<void>

export type RunEvents = { emit(event: RunEvent): void }

/** Delivers each event to the run's own observers first, then to the host's. */
export function createRunEvents(observers: readonly RunObserver[], log: Logger): RunEvents {
  const failed = (event: RunEvent, error: unknown) =>
    log.error('run observer failed', { event: event.type, runId: event.run.runId, error })
  return {
    emit(event) {
      for (const observe of observers) {
        try {
          const pending = observe(event)
          if (pending) pending.catch((error: unknown) => failed(event, error))
        } catch (error) {
          failed(event, error)
        }
      }
    },
  }
}
