import { and, desc, eq, isNull } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { channelBindings } from '../../db/schema/index.ts'
import * as ApprovalStore from '../../runtime/approvals/index.ts'
import type { ApprovalRow } from '../../runtime/approvals/index.ts'
import { errorMessage } from '../../runtime/error-message.ts'
import { stableJson } from '../../runtime/stable-json.ts'
import type { Logger } from '../log.ts'
import { waitForDecision } from './wait.ts'

/**
 * Asking the owner (X6), for whatever needs a yes or no before it goes on: today a tool call a
 * PreToolUse hook answered `ask` for. One ask is: a `popagent_approvals` row (what is asked, the
 * arguments redacted and cut, the run's ids, the channel conversation to ask on), the question
 * posted to that conversation with two buttons when there is one (`notify`, the channel
 * service's), then the bounded wait (wait.ts). The web UI lists pending approvals from the same
 * table, so the owner may answer on either; the first answer wins.
 *
 * The conversation asked on is the one bound to the run's session: a channel turn's own, or a
 * web turn in a session a channel conversation is bound to (the owner is reachable there too).
 */
const SUMMARY_CHARS = 1_000

export type AskInput = {
  /** `tool-call` (the default) or `self-update-patch`. */
  kind?: ApprovalRow['kind']
  toolName?: string
  /** What is asked about: a tool call's arguments, shown as JSON… */
  input?: unknown
  /** …or the question in words (a self-update patch's plan and digest). Redacted and cut. */
  summary?: string
  reason: string | null
  scope: { sessionId?: string | undefined; taskId?: string | undefined; runId?: string }
  /** The conversation to ask in; without it, the one bound to the run's session, if any. */
  bindingId?: string | null | undefined
  agent?: { id: string; name: string }
  timeoutMs: number
  signal?: AbortSignal | undefined
}

export type AskAnswer = {
  id: string
  status: 'allowed' | 'denied' | 'expired'
  decidedBy: string | null
}

export type Approvals = {
  ask(input: AskInput): Promise<AskAnswer>
}

export function createApprovals(deps: {
  db: Db
  log: Logger
  redact: (text: string) => string
  /** Posts the question to its binding's conversation; a failure only costs that copy. */
  notify?: (approval: ApprovalRow) => Promise<void>
  pollMs?: number
}): Approvals {
  const { db } = deps
  return {
    async ask(input) {
      const summary = deps
        .redact(input.summary ?? stableJson(input.input ?? null))
        .slice(0, SUMMARY_CHARS)
      const bindingId =
        input.bindingId ??
        (input.scope.sessionId ? await bindingOfSession(db, input.scope.sessionId) : undefined)
      const row = await ApprovalStore.create(db, {
        ...(input.kind && { kind: input.kind }),
        toolName: input.toolName ?? null,
        summary,
        reason: input.reason === null ? null : deps.redact(input.reason),
        ...input.scope,
        bindingId: bindingId ?? null,
        timeoutMs: input.timeoutMs,
        ...(input.agent && { details: { agentId: input.agent.id, agentName: input.agent.name } }),
      })
      if (row.bindingId && deps.notify) {
        await deps.notify(row).catch((error: unknown) =>
          deps.log.warn('could not post an approval to its channel', {
            approvalId: row.id,
            error: errorMessage(error),
          }),
        )
      }
      const final = await waitForDecision(db, row.id, {
        timeoutMs: input.timeoutMs,
        signal: input.signal,
        ...(deps.pollMs !== undefined && { pollMs: deps.pollMs }),
      })
      const status = final.status === 'pending' ? 'expired' : final.status
      return { id: row.id, status, decidedBy: final.decidedBy }
    },
  }
}

/** The channel conversation bound to a session, if any is (the newest, and not blocked). */
async function bindingOfSession(db: Db, sessionId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ id: channelBindings.id })
    .from(channelBindings)
    .where(and(eq(channelBindings.sessionId, sessionId), isNull(channelBindings.blockedAt)))
    .orderBy(desc(channelBindings.updatedAt))
    .limit(1)
  return row?.id
}
