import { eq } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { channelBindings } from '../../db/schema/index.ts'
import type { BindingRow, ChannelRow } from '../../runtime/channels/index.ts'
import * as Channels from '../../runtime/channels/index.ts'
import { BindingNotFound, ChannelNotFound } from '../../runtime/channels/errors.ts'
import { splitForChannel } from '../../runtime/channels/split-text.ts'
import type { InboundAccepted } from '../../runtime/contracts/channels.ts'
import { errorMessage } from '../../runtime/error-message.ts'
import { createId } from '../../runtime/ids.ts'
import { TurnInProgress } from '../../runtime/sessions/errors.ts'
import { MAX_PROMPT_CHARS } from '../../runtime/contracts/fields.ts'
import * as Tasks from '../../runtime/tasks/index.ts'
import type { Logger } from '../log.ts'
import type { LiveTurns } from '../runs/live-turns.ts'
import type { RunDeps } from '../runs/prepare-run.ts'
import type { ApprovalRow } from '../../runtime/approvals/index.ts'
import { answerPress, approvalButtons, questionText } from './approval-buttons.ts'
import type { ProposalDecider } from './proposal-press.ts'
import { startAnswerStream, type StreamedAnswer } from './answer-stream.ts'
import { runChannelTurn, sessionOf } from './channel-turn.ts'
import type { ChannelDirectory, OpenChannel } from './directory.ts'
import type { Outbox } from './outbox/engine.ts'
import { enqueueChunks } from './outbox/sql/enqueue.ts'
import { pacingFor } from './pacing.ts'
import { cancelQueued } from './outbox/sql/finish.ts'
import { bindingFor, linkTask, recordEvent, setEventState } from './store.ts'
import type { ChannelButton, ChannelTarget, InboundEvent } from './types.ts'

/**
 * What every channel shares, whatever its service (X6). An inbound request is verified by its
 * channel's adapter on its raw bytes before anything parses it; then, per event:
 *
 * 1. it is recorded once (a redelivery is answered `duplicate` and does nothing else);
 * 2. a sender not on the owner's allowlist is refused there: no session, no turn, no model;
 * 3. its conversation and thread find their binding (made on first contact);
 * 4. `/help`, `/stop` (stops the binding's turn and cancels its unsent chunks) and `/new` (a
 *    fresh session for the binding) are answered directly; any other text runs a channel turn
 *    (channel-turn.ts), one at a time per binding;
 * 5. the answer is cut at the channel's limit (runtime/channels/split-text.ts) and queued in the
 *    outbox, which sends it (outbox/engine.ts). Where the channel streams answers
 *    (answer-stream.ts), a first message shows the text while it is written, and the saved
 *    answer's first chunk is queued as the final edit of that message.
 *
 * Payloads pass the host's redactor both ways: what is recorded of an event, and every reply.
 */
export const HELP_TEXT = [
  'popagent answers each message here as a chat turn in this conversation’s session.',
  '/stop — stop the answer being written and anything not yet sent',
  '/new — start a new session for this conversation',
  '/task <prompt> — run it as a background task; its result is posted here',
  '/help — this message',
].join('\n')

/** What a finished turn sends back: its answer, marked when stopped, or why it failed. */
function replyText(answer: { text: string; error?: string; aborted?: boolean }): string {
  if (answer.aborted) return answer.text ? `${answer.text}\n\n(stopped)` : ''
  return answer.text || (answer.error ? `The turn failed: ${answer.error}` : '')
}

/** Answers are shown while written where the adapter can edit and its owner left it on. */
const streams = (channel: OpenChannel) =>
  Boolean(channel.adapter.edit && channel.adapter.streamAnswers && !channel.adapter.listensOnly)

const BUSY_TEXT = 'Still working on your previous message. Send /stop to stop it.'
const SUMMARY_CHARS = 500

export function createChannelService(deps: {
  db: Db
  directory: ChannelDirectory
  outbox: Outbox
  liveTurns: LiveTurns
  run: () => RunDeps
  redact: (text: string) => string
  log: Logger
  /** Decides an evolution proposal a button answers (proposal-press.ts): the web's path. */
  decideProposal?: ProposalDecider
}) {
  const { db, directory, outbox, log } = deps
  /** Turns and commands under way, awaited when the host stops. */
  const running = new Set<Promise<void>>()

  function track(work: Promise<void>) {
    running.add(work)
    void work.finally(() => running.delete(work))
  }

  async function reply(
    channel: OpenChannel,
    binding: BindingRow,
    text: string,
    buttons?: ChannelButton[],
    /** The streamed first message the first chunk replaces (answer-stream.ts). */
    streamed?: StreamedAnswer,
  ): Promise<number> {
    if (channel.adapter.listensOnly) return 0
    const target: ChannelTarget = { conversation: binding.conversation, thread: binding.thread }
    const chunks = splitForChannel(deps.redact(text), channel.adapter.limits.maxChars)
    const queued = await enqueueChunks(db, {
      channelId: channel.row.id,
      bindingId: binding.id,
      target,
      deliveryId: createId('channelDelivery'),
      chunks,
      ...pacingFor(channel.adapter.limits, target),
      ...(buttons && { buttons }),
      ...(streamed?.messageId && { editOf: streamed.messageId, ...streamed }),
    })
    outbox.wake()
    return queued
  }

  /** Acknowledges a button press, with a short text where the service shows one. */
  async function ack(channel: OpenChannel, ackId: string, text: string): Promise<void> {
    await channel.adapter.ackButton?.(ackId, AbortSignal.timeout(10_000), text).catch(() => {})
  }

  async function stopBinding(
    binding: BindingRow,
  ): Promise<{ stopped: boolean; cancelled: number }> {
    const stopped = binding.sessionId ? deps.liveTurns.stop(binding.sessionId) !== undefined : false
    const cancelled = await cancelQueued(db, binding.id)
    return { stopped, cancelled }
  }

  /** A message from an allowed sender: a command, or a turn. */
  async function onMessage(
    channel: OpenChannel,
    binding: BindingRow,
    eventId: string,
    text: string,
  ): Promise<void> {
    // A streamed answer's first message, when one was sent: the answer's first chunk edits it.
    let streamed: StreamedAnswer | undefined
    const command = /^\/(stop|new|help)(@\S+)?\s*$/i.exec(text.trim())?.[1]?.toLowerCase()
    const taskPrompt = /^\/task(?:@\S+)?\s+([\s\S]+)$/i.exec(text.trim())?.[1]
    try {
      if (command === 'help') {
        await reply(channel, binding, HELP_TEXT)
      } else if (command === 'stop') {
        const { stopped, cancelled } = await stopBinding(binding)
        await reply(channel, binding, stopped || cancelled ? 'Stopped.' : 'Nothing is running.')
      } else if (taskPrompt) {
        // A background task whose result comes back here (task-deliveries.ts).
        const task = await Tasks.create(db, {
          workspaceId: channel.row.workspaceId,
          prompt: taskPrompt.slice(0, MAX_PROMPT_CHARS),
          ...(channel.row.model && { model: channel.row.model }),
          deliverTo: binding.id,
        })
        await linkTask(db, eventId, task.id)
        await reply(channel, binding, `Task ${task.id} queued; its result will be posted here.`)
        await setEventState(db, eventId, 'done', '/task', binding.id)
        return
      } else if (command === 'new') {
        await sessionOf(db, channel.row, binding, true)
        await reply(channel, binding, 'Started a new session for this conversation.')
      } else {
        await setEventState(db, eventId, 'running', undefined, binding.id)
        const stream = streams(channel)
          ? startAnswerStream({
              adapter: channel.adapter,
              target: { conversation: binding.conversation, thread: binding.thread },
              redact: deps.redact,
              log,
            })
          : undefined
        let answer: Awaited<ReturnType<typeof runChannelTurn>>
        try {
          answer = await runChannelTurn(
            { run: deps.run(), liveTurns: deps.liveTurns },
            {
              channel: channel.row,
              adapter: channel.adapter,
              binding,
              text,
              requestId: eventId,
              ...(stream && { onText: stream.push }),
            },
          )
        } finally {
          streamed = await stream?.finish()
        }
        const said = replyText(answer)
        if (said) await reply(channel, binding, said, undefined, streamed)
        await setEventState(
          db,
          eventId,
          answer.error && !answer.aborted ? 'failed' : 'done',
          answer.error,
        )
        return
      }
      await setEventState(db, eventId, 'done', `/${command}`, binding.id)
    } catch (error) {
      if (error instanceof TurnInProgress) {
        await reply(channel, binding, BUSY_TEXT)
        await setEventState(
          db,
          eventId,
          'refused',
          'a turn is already running in this conversation',
          binding.id,
        )
        return
      }
      const message = deps.redact(errorMessage(error))
      log.error('channel event failed', { eventId, error: message })
      await setEventState(db, eventId, 'failed', message, binding.id).catch(() => {})
      await reply(channel, binding, `The turn failed: ${message}`, undefined, streamed).catch(
        () => {},
      )
    }
  }

  async function accept(channel: OpenChannel, event: InboundEvent): Promise<InboundAccepted> {
    if (event.type === 'challenge') {
      return { verified: true, eventId: null, duplicate: false, challenge: event.challenge }
    }
    const row = channel.row
    const sender = event.type === 'ignored' ? null : event.sender
    const summary =
      event.type === 'message'
        ? {
            conversation: event.conversation,
            thread: event.thread,
            text: deps.redact(event.text.slice(0, SUMMARY_CHARS)),
          }
        : event.type === 'button'
          ? { conversation: event.conversation, thread: event.thread, data: event.data }
          : { reason: event.reason }
    const allowed = sender !== null && row.allowedSenders.includes(sender)
    const recorded = await recordEvent(db, {
      channelId: row.id,
      externalId: event.externalId,
      sender,
      kind: event.type,
      summary,
      state: event.type === 'ignored' ? 'ignored' : allowed ? 'received' : 'refused',
      ...(event.type !== 'ignored' && !allowed && { detail: 'the sender is not on the allowlist' }),
    })
    const accepted = { verified: true, eventId: recorded.id, duplicate: recorded.duplicate }
    // A stranger's button press is refused like any stranger's event, and told so: a service
    // that shows a spinner until the press is acknowledged (Telegram) would otherwise keep it.
    if (event.type === 'button' && !allowed && !recorded.duplicate && event.ackId) {
      await ack(channel, event.ackId, 'Only the owner can answer this.')
    }
    // A redelivery, an update the channel ignores, or a stranger: nothing more happens.
    if (recorded.duplicate || event.type === 'ignored' || !allowed) {
      if (!allowed && !recorded.duplicate && event.type !== 'ignored') {
        log.warn('channel sender refused', { channelId: row.id, eventId: recorded.id })
      }
      return accepted
    }
    const binding = await bindingFor(db, row.id, {
      conversation: event.conversation,
      thread: event.thread,
    })
    if (event.type === 'button') {
      // An approval button from the owner (approval-buttons.ts), honoured once.
      const outcome = await answerPress(db, { channelId: row.id, ...event }, deps.decideProposal)
      if (event.ackId) await ack(channel, event.ackId, outcome.text)
      await setEventState(db, recorded.id, outcome.state, outcome.detail, binding.id)
      return accepted
    }
    track(onMessage(channel, binding, recorded.id, event.text))
    return accepted
  }

  return {
    /**
     * An inbound request for channel `id`: verified, then each event accepted. An unknown or
     * disabled channel and a failed verification are the same refusal (`verified: false`).
     */
    async inbound(
      id: string,
      headers: Record<string, string>,
      body: Uint8Array,
    ): Promise<InboundAccepted> {
      const channel = await directory.get(id)
      const refused = { verified: false, eventId: null, duplicate: false }
      if (!channel || !channel.row.enabled) return refused
      const request = { headers, body, now: Date.now() }
      const verdict = channel.adapter.verify(request)
      if (!verdict.ok) {
        log.warn('channel event refused', { channelId: id, reason: verdict.reason })
        return refused
      }
      let answer: InboundAccepted = { verified: true, eventId: null, duplicate: false }
      for (const event of channel.adapter.parse(request)) {
        const accepted = await accept(channel, event)
        if (answer.eventId === null && !answer.challenge) answer = accepted
      }
      return answer
    },

    /**
     * Asks an approval's question in its binding's conversation, with Allow and Deny buttons.
     * A blocked binding, a channel that only listens, or one that is gone: not asked there (the
     * web UI still lists it).
     */
    async askApproval(approval: ApprovalRow): Promise<void> {
      if (!approval.bindingId) return
      const [binding] = await db
        .select()
        .from(channelBindings)
        .where(eq(channelBindings.id, approval.bindingId))
      if (!binding || binding.blockedAt) return
      const channel = await directory.get(binding.channelId)
      if (!channel || !channel.row.enabled) return
      const buttons = approvalButtons(approval.id, approval.kind)
      await reply(channel, binding, questionText(approval), buttons)
    },

    /** Events a poll brought (already from the service itself: nothing to verify). */
    async acceptEvents(channel: OpenChannel, events: InboundEvent[]): Promise<void> {
      if (!channel.row.enabled) return
      for (const event of events) await accept(channel, event)
    },

    /** The owner posts to a conversation: the text is cut and queued like an answer. */
    async post(
      id: string,
      to: { conversation: string; thread?: string | undefined; text: string },
    ) {
      const channel = await directory.get(id)
      if (!channel) throw new ChannelNotFound({ id })
      const binding = await bindingFor(db, id, {
        conversation: to.conversation,
        thread: to.thread ?? '',
      })
      const deliveryId = createId('channelDelivery')
      const chunks = splitForChannel(deps.redact(to.text), channel.adapter.limits.maxChars)
      const target = { conversation: binding.conversation, thread: binding.thread }
      await enqueueChunks(db, {
        channelId: id,
        bindingId: binding.id,
        target,
        deliveryId,
        chunks,
        ...pacingFor(channel.adapter.limits, target),
      })
      outbox.wake()
      return { deliveryId, chunks: chunks.length }
    },

    /** Stops a binding's running turn and cancels its unsent chunks (the route and `/stop`). */
    async cancel(channelId: string, bindingId: string) {
      const binding = await Channels.bindingOf(db, channelId, bindingId)
      if (!binding) throw new BindingNotFound({ id: bindingId })
      return stopBinding(binding)
    },

    /** Registers the channel's inbound URL with its service (Telegram's setWebhook). */
    async setup(id: string, inboundUrl: string) {
      const channel = await directory.get(id)
      if (!channel) throw new ChannelNotFound({ id })
      if (!channel.adapter.setup) return { registered: false }
      await channel.adapter.setup(inboundUrl, AbortSignal.timeout(15_000))
      return { registered: true }
    },

    /** Waits for the turns and commands under way (the host is stopping; turns end first). */
    async close(): Promise<void> {
      await Promise.allSettled([...running])
    },
  }
}
export type ChannelService = ReturnType<typeof createChannelService>
export type { ChannelRow }
