import { toAISdkStream } from '@mastra/ai-sdk'
import { createUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai'
import type { AssistantMetadata, ChatRequest } from '../../runtime/contracts/chat.ts'
import type { SessionSummary, UiMessage } from '../../runtime/contracts/sessions.ts'
import { createId, randomHex } from '../../runtime/ids.ts'
import { INTERRUPTED_BY_RESTART, saveLiveTurn } from '../../runtime/sessions/live-turns.ts'
import { createActivityLog, type ActivityPart } from './activity.ts'
import type { LiveTurns, StopReason } from './live-turns.ts'
import { claimRedacted } from './claim-redacted.ts'
import { prepareRun, type PreparedRun, type RunDeps } from './prepare-run.ts'
import { describeRunError } from './run-errors.ts'
import type { RunObserver } from './run-events.ts'
import { redactChunk, redactUiStream } from './stream-redaction.ts'
import { createUsageMeter } from './usage.ts'
import { turnUndoRecorder } from '../undo/turn-recorder.ts'
import { yieldToIo } from './yield-to-io.ts'
import { promptHooks } from '../hooks/prompt-hooks.ts'
import { refuseBesideMaintenance } from '../build/workspace-lease.ts'

const TITLE_CHARS = 60
/** How long a burst of text deltas gathers before it goes to the socket (announceSaved). */
const BURST_WRITE_MS = 2

/**
 * The chat driver of the run path: claims the session for the turn (one turn per session; the
 * claim checks the session too), prepares the run and streams the supervisor's run as an AI SDK
 * UI-message stream. The session's messages are appended when the stream ends, whether it
 * completed, failed or was stopped, so a session always holds the user's message and whatever
 * answer there was; the stream's last metadata then names the session's saved revision, so the
 * client knows the turn is stored without asking. What the client is sent and what is saved pass
 * the host's redactor.
 *
 * The run is prepared while the claim is in flight (the claim waits for its commit to reach the
 * disk): the repository check, the brief and the agents' build report nothing, and recall sends
 * nothing to the embedding model, until the claim and the prompt hooks let the run start
 * (`admission` in prepare-run.ts); a refused claim or a denying hook releases what was built, and
 * no run was ever reported.
 *
 * The turn is live (live-turns.ts): it runs under its own signal, whatever happens to the request
 * that started it, and its stream is read to its end on the host. The answer is that stream for
 * the client that started it, as server-sent events; any other client can join it meanwhile.
 */
export async function startChatTurn(
  deps: RunDeps,
  given: ChatRequest,
  live: Pick<LiveTurns, 'claim'>,
  requestId?: string,
): Promise<ReadableStream<Uint8Array>> {
  const startedAt = Date.now()
  const turnId = createId('turn')
  const traceId = randomHex(16)
  // Every line the run logs names its trace, so the trace finds them (log-forwarder.ts).
  deps = { ...deps, log: deps.log.child({ traceId }) }
  const { redacted, claiming } = claimRedacted(deps, live, {
    sessionId: given.sessionId,
    workspaceId: given.workspaceId,
    turnId,
    message: given.message,
  })
  // The query the preparation searches and briefs with: the message as the claim's first try
  // redacted it.
  const query = textOf(redacted)
  // One read of the configuration's version serves the whole turn: its hooks, settings, agents.
  const snapshot = deps.config.snapshot()
  const reporting = turnReporting(deps)
  // Per-turn undo (B3): the working tree is snapshotted before the turn's first write.
  const undo = turnUndoRecorder(deps, {
    turnId,
    sessionId: given.sessionId,
    workspaceId: given.workspaceId,
  })
  // The run prepared beside the claim works under this signal (its brief, recall, a hook's wait
  // for the owner): aborted when that preparation is dropped, and, once the run is the turn's,
  // when the turn is stopped.
  const speculation = new AbortController()
  const prepare = async (text: string, signal: AbortSignal, admission?: Promise<unknown>) =>
    prepareRun(deps, {
      run: {
        kind: 'chat',
        runId: turnId,
        traceId,
        sessionId: given.sessionId,
        ...(requestId && { requestId }),
      },
      startedAt,
      config: await snapshot,
      workspaceId: given.workspaceId,
      query: text,
      model: given.model,
      usage: reporting.usage,
      observers: [...reporting.observers, undo.observer],
      toolHooks: [undo.toolHooks],
      signal,
      ...(admission && { admission }),
    })
  let admit!: () => void
  let refuse!: (error: unknown) => void
  const admission = new Promise<void>((resolve, reject) => {
    admit = resolve
    refuse = reject
  })
  // The preparation may fail before it waits for admission; neither promise is left unheard.
  admission.catch(() => {})
  const prepared = prepare(query, speculation.signal, admission)
  prepared.catch(() => {})
  const dropPreparation = async (error: unknown) => {
    refuse(error)
    speculation.abort()
    await prepared.catch(() => {})
  }

  let claim: Awaited<typeof claiming>
  try {
    claim = await claiming
  } catch (error) {
    await dropPreparation(error)
    throw error
  }
  const { claimed } = claim
  claimed.signal.addEventListener('abort', () => speculation.abort(claimed.signal.reason), {
    once: true,
  })
  const request: ChatRequest = { ...given, message: claim.message }
  const prompt = textOf(request.message)
  const session: TurnSession = {
    id: given.sessionId,
    workspaceId: claimed.session.workspaceId,
    messageCount: claimed.session.messageCount,
  }
  let run: PreparedRun
  let hookContext: string | undefined
  try {
    // Claimed first, then checked: a build-maintenance attempt starting now sees this turn.
    refuseBesideMaintenance(session.workspaceId)
    const config = await snapshot
    hookContext = deps.hooks
      ? await promptHooks(deps.hooks, {
          scope: { sessionId: session.id, runId: turnId, workspaceId: session.workspaceId },
          prompt,
          firstTurn: session.messageCount === 0,
          config,
        })
      : undefined
    if (prompt === query) {
      admit()
      run = await prepared
    } else {
      // The claim caught up with the vault and redacted the message again: what was prepared
      // searched and briefed with the older redaction, so it goes and the run is prepared anew.
      await dropPreparation(new Error('the message was redacted again'))
      run = await prepare(prompt, claimed.signal)
    }
  } catch (error) {
    await dropPreparation(error)
    await claimed.release()
    throw error
  }
  return claimed.publish(
    streamTurn(deps, {
      request,
      session,
      turnId,
      traceId,
      run,
      reporting,
      hookContext,
      signal: claimed.signal,
    }),
  )
}

/** What a turn knows of its session, as its claim found it. */
type TurnSession = Pick<SessionSummary, 'id' | 'workspaceId' | 'messageCount'>

/**
 * What a turn reports to its client while it is prepared and while it runs: the usage, the
 * agents' activity and the budget used so far (after every step and every guard stop). Activity
 * reported before the stream opens (the brief, while preparing) waits until it does.
 */
function turnReporting(deps: Pick<RunDeps, 'redact'>) {
  const usage = createUsageMeter()
  const early: ActivityPart[] = []
  let emit = (part: ActivityPart & { transient: true }) => {
    early.push(part)
  }
  let writeMetadata = () => {}
  const activity = createActivityLog({ emit: (part) => emit(part), redact: deps.redact })
  const observers: RunObserver[] = [
    (event) => activity.observe(event),
    (event) => {
      if (event.type === 'step' || event.type === 'guard') writeMetadata()
    },
  ]
  return {
    usage,
    activity,
    observers,
    /** The stream is open: what waited goes out, and everything after goes out at once. */
    open(writer: { write(part: UIMessageChunk): void }, metadata: () => AssistantMetadata) {
      emit = (part) => writer.write(part as never)
      writeMetadata = () => writer.write({ type: 'message-metadata', messageMetadata: metadata() })
      writeMetadata()
      for (const part of early.splice(0)) writer.write({ ...part, transient: true } as never)
    },
  }
}

/** The turn itself, once claimed and prepared: its UI-message stream, redacted. */
function streamTurn(
  deps: RunDeps,
  turn: {
    request: ChatRequest
    session: TurnSession
    turnId: string
    traceId: string
    run: PreparedRun
    reporting: ReturnType<typeof turnReporting>
    hookContext: string | undefined
    signal: AbortSignal
  },
): ReadableStream<UIMessageChunk> {
  const { db } = deps
  const { request, session, turnId, traceId, run, reporting, hookContext, signal } = turn
  const { usage, activity } = reporting
  const { route } = run
  const metadata = (extra: Partial<AssistantMetadata> = {}): AssistantMetadata => ({
    turnId,
    traceId,
    model: route,
    usage: usage.snapshot(),
    usageByAgent: usage.byAgent(),
    budget: run.budget.snapshot(),
    ...extra,
  })

  let failure: string | undefined
  let savedRevision: number | undefined
  const failed = (text: string) => {
    failure = text
    deps.log.warn('chat turn failed', { turnId, sessionId: session.id, error: failure })
    return failure
  }
  const fail = (error: unknown) => failed(describeRunError(error, deps.redact))
  const messageId = createId('message')
  const stream = createUIMessageStream<UIMessage<AssistantMetadata>>({
    generateId: () => messageId,
    execute: async ({ writer }) => {
      // The reply's id first: a client joining the turn later replays it from here.
      writer.write({ type: 'start', messageId })
      reporting.open(writer, metadata)
      const output = await run.team.supervisor.stream([request.message as never], {
        ...run.options({ thread: session.id, signal }),
        // What the turn's hooks added, for this request only (not saved as a message).
        ...(hookContext && { context: [{ role: 'system' as const, content: hookContext }] }),
      })
      const chunks = toAISdkStream(output, {
        from: 'agent',
        version: 'v7',
        sendStart: false,
        sendReasoning: false,
        // Errors inside the agent's stream: the same clear, redacted text, never a stack. This
        // also writes a failed tool call's text (its `tool-output-error`), which the model reads
        // and answers: only an `error` part fails the turn (below).
        onError: (error) => describeRunError(error, deps.redact),
        messageMetadata: ({ part }) => {
          if (part.type !== 'finish') return undefined
          const total = (part as { totalUsage?: { inputTokens?: number; outputTokens?: number } })
            .totalUsage
          if (total) usage.add(route, total, run.team.supervisor.id)
          return metadata()
        },
      }) as ReadableStream<UIMessageChunk>
      writer.merge(chunks.pipeThrough(failedBy(failed)) as ReadableStream<never>)
    },
    onError: (error) => fail(error),
    onEnd: async ({ responseMessage, isAborted }) => {
      // A host stopping ends its turns as interrupted by the restart, not stopped by the owner.
      const interrupted = signal.aborted && (signal.reason as StopReason) === 'shutdown'
      const aborted = !interrupted && (isAborted || signal.aborted)
      const assistant = {
        ...responseMessage,
        role: 'assistant' as const,
        parts: [...responseMessage.parts, ...activity.parts()],
        metadata: {
          ...metadata({
            ...(aborted ? { aborted: true } : {}),
            ...(failure || interrupted ? { error: failure ?? INTERRUPTED_BY_RESTART } : {}),
          }),
          ...(interrupted && { interrupted: 'restart' }),
        },
      } as UiMessage
      try {
        const saved = await saveLiveTurn(db, {
          sessionId: session.id,
          turnId,
          messages: [request.message, redactChunk(assistant, deps.redactor)],
          title: titleFrom(request.message),
        })
        if (saved) savedRevision = saved.revision
        else deps.log.warn('turn closed elsewhere; not saved again', { turnId })
      } catch (error) {
        deps.log.error('could not save the turn', { turnId, sessionId: session.id, error })
      } finally {
        await run.end(failure ? 'failed' : aborted ? 'aborted' : 'completed', failure)
      }
    },
  })
  return stream
    .pipeThrough(redactUiStream(deps.redactor))
    .pipeThrough(announceSaved(() => savedRevision, metadata))
}

/** Passes the turn's chunks on; an `error` part (the run itself failed) fails the turn. */
function failedBy(failed: (text: string) => void): TransformStream<UIMessageChunk, UIMessageChunk> {
  return new TransformStream({
    transform(chunk, controller) {
      if (chunk.type === 'error') failed(chunk.errorText)
      controller.enqueue(chunk)
    },
  })
}

/**
 * Holds the stream's `finish` back until the turn is saved (the upstream's end waits for the
 * save), then sends the saved revision as the message's last metadata, and the `finish`. As the
 * last layer before the HTTP response, it also hands text deltas to the socket before it takes
 * the next chunk (`yieldToIo` says why), so words that arrived together do not wait for each
 * other: the turn's first delta at once, then at most every `BURST_WRITE_MS` of a burst. A write
 * per delta cost a socket write each (about 1.4 ms of CPU a turn over Mastra's own server in
 * the chat-turn bench); deltas that arrive apart go out as they come either way.
 */
function announceSaved(
  revision: () => number | undefined,
  metadata: (extra: Partial<AssistantMetadata>) => AssistantMetadata,
): TransformStream<UIMessageChunk, UIMessageChunk> {
  let finish: UIMessageChunk | undefined
  let lastWrite: number | undefined
  return new TransformStream({
    async transform(chunk, controller) {
      if (chunk.type === 'finish') {
        finish = chunk
        return
      }
      controller.enqueue(chunk)
      if (chunk.type !== 'text-delta') return
      if (lastWrite === undefined || performance.now() - lastWrite >= BURST_WRITE_MS) {
        await yieldToIo()
        lastWrite = performance.now()
      }
    },
    flush(controller) {
      const savedRevision = revision()
      if (savedRevision !== undefined) {
        controller.enqueue({
          type: 'message-metadata',
          messageMetadata: metadata({ savedRevision }),
        })
      }
      if (finish) controller.enqueue(finish)
    },
  })
}

function textOf(message: UiMessage): string {
  return message.parts
    .filter(
      (p): p is typeof p & { text: string } => p.type === 'text' && typeof p.text === 'string',
    )
    .map((p) => p.text)
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim()
}

function titleFrom(message: UiMessage): string | undefined {
  const text = textOf(message)
  if (!text) return undefined
  return text.length > TITLE_CHARS ? `${text.slice(0, TITLE_CHARS - 1)}…` : text
}
