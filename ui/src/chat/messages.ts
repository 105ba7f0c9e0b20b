/**
 * Reading a message the same way whether it is streaming or came back saved with the session:
 * its text, its agents' activity, its metadata (model, usage, stop and error). Pure, no DOM.
 */
import type { AssistantMetadata } from '../../../runtime/contracts/chat.ts'
import type { UiMessage } from '../../../runtime/contracts/sessions.ts'
import { ACTIVITY, type ActivityPart, type ReplyState } from './reducer.ts'

/** A message as the transcript shows it: the saved shape, which a streaming reply also takes. */
export type ShownMessage = Pick<UiMessage, 'id' | 'role' | 'parts' | 'metadata'>

/** The streaming reply as a message, so one view renders saved and live replies alike. */
export function replyMessage(reply: ReplyState, fallbackId: string): ShownMessage {
  return {
    id: reply.messageId ?? fallbackId,
    role: 'assistant',
    parts: reply.parts,
    metadata: {
      ...reply.metadata,
      ...(reply.status === 'stopped' && { aborted: true }),
      ...(reply.errors.length > 0 && { error: reply.errors.join('\n') }),
    },
  }
}

export function textOf(message: ShownMessage): string {
  return message.parts
    .filter(
      (p): p is typeof p & { text: string } => p.type === 'text' && typeof p.text === 'string',
    )
    .map((p) => p.text)
    .join('')
}

/** The message's activity items, each once (the last state of an id wins), in first-seen order. */
export function activityOf(message: ShownMessage): ActivityPart[] {
  const byId = new Map<string, ActivityPart>()
  for (const part of message.parts) {
    if (part.type !== ACTIVITY) continue
    const p = part as Partial<ActivityPart>
    if (typeof p.id === 'string' && p.data && typeof p.data === 'object') {
      byId.set(p.id, p as ActivityPart)
    }
  }
  return [...byId.values()]
}

/** The assistant metadata, when the message carries it in the expected shape. */
export function metadataOf(message: ShownMessage): Partial<AssistantMetadata> | undefined {
  const m = message.metadata
  return m && typeof m === 'object' ? (m as Partial<AssistantMetadata>) : undefined
}

export type UsageLine = { model: string } & AssistantMetadata['usage'][string]

/** Token usage of a turn, one line per model that did work (supervisor and specialists). */
export function usageOf(metadata: Partial<AssistantMetadata> | undefined): UsageLine[] {
  const usage = metadata?.usage
  if (!usage || typeof usage !== 'object') return []
  return Object.entries(usage)
    .filter(([, u]) => u && (u.inputTokens > 0 || u.outputTokens > 0))
    .map(([model, u]) => ({ model, inputTokens: u.inputTokens, outputTokens: u.outputTokens }))
}

/**
 * A context window in brief. Windows that are whole multiples of 1024 are counted in binary, as
 * model cards do (131072 → "128k", 1048576 → "1M"); others in decimal (200000 → "200k").
 */
export function contextSize(tokens: number): string {
  const base = tokens % 1024 === 0 ? 1024 : 1000
  if (tokens >= base * base) return `${trim(tokens / (base * base))}M`
  if (tokens >= base) return `${trim(tokens / base)}k`
  return String(tokens)
}

const trim = (n: number) => (n >= 100 ? Math.round(n) : Math.round(n * 10) / 10).toString()

/**
 * The messages without the exchange that begins at this user message: the user message and the
 * replies that follow it up to the next user message. Unknown ids leave the list as it is.
 */
export function withoutExchange<T extends Pick<UiMessage, 'id' | 'role'>>(
  messages: T[],
  userMessageId: string,
): T[] {
  const start = messages.findIndex((m) => m.id === userMessageId && m.role === 'user')
  if (start === -1) return messages
  let end = start + 1
  while (end < messages.length && messages[end]!.role !== 'user') end++
  return [...messages.slice(0, start), ...messages.slice(end)]
}

/** A client-side message id: `crypto.randomUUID` is missing on plain-http LAN addresses. */
export function newMessageId(): string {
  return `msg_ui_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`
}

/**
 * Stable keys for the transcript's rows. A user message is keyed by its id; a reply by the user
 * message it answers (and its place after it), not by its own id, because the live copy of a
 * reply has a client-side id and the saved copy the server's. So when the saved session replaces
 * the live turn, the reply keeps its row, and a long rendered reply is not built a second time.
 */
export function rowKeys(messages: readonly Pick<ShownMessage, 'id' | 'role'>[]): string[] {
  const keys: string[] = []
  const seen = new Set<string>()
  let after = ''
  let n = 0
  for (const message of messages) {
    let key: string
    if (message.role === 'user') {
      after = message.id
      n = 0
      key = `u:${message.id}`
    } else key = `r:${after}:${n++}`
    // Keys must be unique in the list even if ids repeat in a damaged session.
    while (seen.has(key)) key += "'"
    seen.add(key)
    keys.push(key)
  }
  return keys
}
