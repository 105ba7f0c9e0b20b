import type { Db } from '../../db/index.ts'
import * as ApprovalStore from '../../runtime/approvals/index.ts'
import type { ApprovalRow } from '../../runtime/approvals/index.ts'
import * as Channels from '../../runtime/channels/index.ts'
import { isId } from '../../runtime/ids.ts'
import { answerProposalPress, type ProposalDecider } from './proposal-press.ts'
import type { ChannelButton } from './types.ts'

/**
 * Approvals on a channel (X6): the question posted with two buttons, and a press read back.
 *
 * A button carries `appr:<approval id>:a` (allow) or `…:d` (deny), 37 bytes, inside Telegram's
 * 64-byte callback data. Who may press it — "the owner" on a channel — is a sender on that
 * channel's allowlist (the owner's own list of who speaks for them there; anyone else is refused
 * before this code runs), pressing in the conversation the question was asked in. A press on
 * another channel or conversation, however allowlisted, does not answer it. The first answer
 * wins (runtime/approvals); a later press is told what was decided and changes nothing.
 */
const DATA = /^appr:([A-Za-z0-9_-]{1,80}):([ad])$/

export const approvalButtons = (id: string, kind?: ApprovalRow['kind']): ChannelButton[] =>
  kind === 'evolution-proposal'
    ? [
        { text: 'Approve', data: `appr:${id}:a` },
        { text: 'Reject', data: `appr:${id}:d` },
      ]
    : [
        { text: 'Allow', data: `appr:${id}:a` },
        { text: 'Deny', data: `appr:${id}:d` },
      ]

export function parseApprovalButton(
  data: string,
): { id: string; decision: 'allow' | 'deny' } | undefined {
  const match = DATA.exec(data)
  if (!match || !isId('approval', match[1]!)) return undefined
  return { id: match[1]!, decision: match[2] === 'a' ? 'allow' : 'deny' }
}

/** The question as the channel shows it: what would run, with its (redacted) arguments. */
export function questionText(row: ApprovalRow): string {
  const agent = typeof row.details.agentName === 'string' ? row.details.agentName : 'The agent'
  if (row.kind === 'evolution-proposal') {
    return [
      `Evolution proposal for ${agent}: approve to apply this learned change, reject to discard it.`,
      row.summary,
      ...(row.reason ? [`Why: ${row.reason}`] : []),
      'Unanswered, it stays in the review queue on the Autonomy page.',
    ].join('\n\n')
  }
  const minutes = Math.max(1, Math.round((row.expiresAt.getTime() - Date.now()) / 60_000))
  const what =
    row.kind === 'self-update-patch'
      ? `Approval needed: a self-update patch passed its review and waits for yours (task ${row.taskId}).`
      : `Approval needed: ${agent} wants to call ${row.toolName ?? 'a tool'}.`
  return [
    what,
    row.summary,
    ...(row.reason ? [`Asked because: ${row.reason}`] : []),
    `No answer within about ${minutes} min is a deny.`,
  ].join('\n\n')
}

/** What a press did, said back to the one who pressed (the button's acknowledgement). */
export type PressOutcome = { text: string; state: 'done' | 'refused' | 'ignored'; detail: string }

const STATUS_TEXT = { allowed: 'allowed', denied: 'denied', expired: 'expired (a deny)' } as const

export async function answerPress(
  db: Db,
  press: { channelId: string; conversation: string; thread: string; sender: string; data: string },
  /** Decides evolution proposals (the web's path); without it their questions are refused. */
  decideProposal?: ProposalDecider,
): Promise<PressOutcome> {
  const parsed = parseApprovalButton(press.data)
  if (!parsed) return { text: '', state: 'ignored', detail: 'not an approval button' }
  const row = await ApprovalStore.rowOf(db, parsed.id)
  const binding = row?.bindingId
    ? await Channels.bindingOf(db, press.channelId, row.bindingId)
    : undefined
  const here = binding?.conversation === press.conversation && binding.thread === press.thread
  if (!row || !here) {
    return {
      text: 'This approval was not asked here.',
      state: 'refused',
      detail: 'an approval button for a question not asked in this conversation',
    }
  }
  const by = `channel:${press.channelId}:${press.sender}`
  if (row.kind === 'evolution-proposal') {
    return answerProposalPress(db, row, parsed.decision, by, decideProposal)
  }
  const { row: now, changed } = await ApprovalStore.decide(db, row.id, parsed.decision, by)
  const said = STATUS_TEXT[now.status as keyof typeof STATUS_TEXT] ?? now.status
  return changed
    ? { text: `Done: ${said}.`, state: 'done', detail: `approval ${row.id} ${now.status}` }
    : {
        text: `Already answered: ${said}.`,
        state: 'done',
        detail: `approval ${row.id} was already ${now.status}`,
      }
}
