/**
 * The streaming state of one reply, and the pure reducer that folds the turn's UI-message chunks
 * into it. No Solid, no DOM: Node imports this file in test/ui-chat-reducer.test.ts.
 *
 * The chunks are the AI SDK's (`UIMessageChunk`, a type import: nothing of `ai` is bundled). The
 * host streams text deltas, `data-agentActivity` parts that update the item with the same id in
 * place, message metadata (turn, trace, model, usage) and error parts; everything else (tool
 * parts, step markers, memory status) is ignored here.
 */
import type { UIMessageChunk } from 'ai'
import type {
  ACTIVITY_PART,
  AgentActivity,
  AssistantMetadata,
} from '../../../runtime/contracts/chat.ts'

/** The activity part's type as the host writes it (typed against the contract, no zod bundled). */
export const ACTIVITY: typeof ACTIVITY_PART = 'data-agentActivity'

export type TextPart = { type: 'text'; id?: string; text: string; state?: 'streaming' | 'done' }
export type ActivityPart = { type: typeof ACTIVITY_PART; id: string; data: AgentActivity }
export type ReplyPart = TextPart | ActivityPart

/** A chunk of `POST /api/chat`'s stream, with this project's metadata and data parts. */
export type ChatChunk = UIMessageChunk<AssistantMetadata, { agentActivity: AgentActivity }>

export type ReplyStatus = 'streaming' | 'done' | 'stopped' | 'failed'

export type ReplyState = {
  messageId?: string
  parts: ReplyPart[]
  metadata?: AssistantMetadata
  status: ReplyStatus
  /** The error parts' texts, in order (already redacted by the host). */
  errors: string[]
  /** Where the current step's parts begin (for `reset-step`). */
  stepStart: number
}

export const emptyReply = (): ReplyState => ({
  parts: [],
  status: 'streaming',
  errors: [],
  stepStart: 0,
})

const ended = (status: ReplyStatus) => status === 'stopped' || status === 'failed'

/** The reply after one more chunk. Never mutates `state`; unknown chunks leave it as it is. */
export function applyChunk(state: ReplyState, chunk: ChatChunk): ReplyState {
  switch (chunk.type) {
    case 'start':
      return {
        ...state,
        ...(chunk.messageId && { messageId: chunk.messageId }),
        ...(chunk.messageMetadata && { metadata: merge(state.metadata, chunk.messageMetadata) }),
      }
    case 'message-metadata':
      return { ...state, metadata: merge(state.metadata, chunk.messageMetadata) }
    case 'text-start':
      return { ...state, parts: [...state.parts, { type: 'text', id: chunk.id, text: '' }] }
    case 'text-delta': {
      const index = findText(state.parts, chunk.id)
      if (index === -1) {
        const part: TextPart = { type: 'text', id: chunk.id, text: chunk.delta }
        return { ...state, parts: [...state.parts, part] }
      }
      const part = state.parts[index] as TextPart
      return {
        ...state,
        parts: replace(state.parts, index, { ...part, text: part.text + chunk.delta }),
      }
    }
    case 'text-end': {
      const index = findText(state.parts, chunk.id)
      if (index === -1) return state
      const part = state.parts[index] as TextPart
      return { ...state, parts: replace(state.parts, index, { ...part, state: 'done' }) }
    }
    case 'data-agentActivity': {
      if (!chunk.id || !chunk.data) return state
      const part: ActivityPart = { type: ACTIVITY, id: chunk.id, data: chunk.data }
      const index = state.parts.findIndex((p) => p.type === ACTIVITY && p.id === chunk.id)
      const parts = index === -1 ? [...state.parts, part] : replace(state.parts, index, part)
      return { ...state, parts }
    }
    case 'start-step':
      return { ...state, stepStart: state.parts.length }
    case 'reset-step':
      // The step's text is withdrawn; activity already reported stays (the host keeps it too).
      return {
        ...state,
        parts: [
          ...state.parts.slice(0, state.stepStart),
          ...state.parts.slice(state.stepStart).filter((p) => p.type === ACTIVITY),
        ],
      }
    case 'error':
      return { ...state, status: 'failed', errors: [...state.errors, chunk.errorText] }
    case 'abort':
      return state.status === 'failed' ? state : { ...state, status: 'stopped' }
    case 'finish':
      return {
        ...state,
        ...(chunk.messageMetadata && { metadata: merge(state.metadata, chunk.messageMetadata) }),
        status: ended(state.status) ? state.status : 'done',
      }
    default:
      return state
  }
}

/** The stream ended without a `finish` chunk: the connection dropped mid-reply. */
export function closeReply(state: ReplyState): ReplyState {
  if (state.status !== 'streaming') return state
  return applyChunk(state, {
    type: 'error',
    errorText: 'the connection closed before the reply finished',
  })
}

function merge(previous: AssistantMetadata | undefined, next: AssistantMetadata | undefined) {
  if (!next) return previous
  return previous ? { ...previous, ...next } : next
}

function findText(parts: ReplyPart[], id: string) {
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i]!
    if (part.type === 'text' && part.id === id) return i
  }
  return -1
}

function replace<T>(items: T[], index: number, item: T): T[] {
  const copy = items.slice()
  copy[index] = item
  return copy
}
