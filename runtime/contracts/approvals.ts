import { z } from 'zod'
import { ApprovalId } from '../ids.ts'

/**
 * Approvals as the API shows and takes them (X6): a question a run waits on, answered once by
 * the owner on the web UI or with a channel button. `decidedBy` is `owner-web` or
 * `channel:<channel id>:<sender id>`.
 */
export const APPROVAL_STATUSES = ['pending', 'allowed', 'denied', 'expired'] as const
export const ApprovalStatus = z.enum(APPROVAL_STATUSES)
export type ApprovalStatus = z.infer<typeof ApprovalStatus>

export const Approval = z.object({
  id: z.string(),
  kind: z.enum(['tool-call', 'self-update-patch', 'evolution-proposal']),
  toolName: z.string().nullable(),
  summary: z.string(),
  reason: z.string().nullable(),
  sessionId: z.string().nullable(),
  taskId: z.string().nullable(),
  runId: z.string().nullable(),
  /** The held evolution proposal an `evolution-proposal` approval asks about. */
  proposalId: z.string().nullable(),
  bindingId: z.string().nullable(),
  status: ApprovalStatus,
  decidedBy: z.string().nullable(),
  decidedAt: z.string().nullable(),
  expiresAt: z.string(),
  createdAt: z.string(),
})
export type Approval = z.infer<typeof Approval>

export const ApprovalParams = z.strictObject({ id: ApprovalId })
export const ApprovalListQuery = z.strictObject({
  status: ApprovalStatus.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
})
export const DecideApprovalInput = z.strictObject({ decision: z.enum(['allow', 'deny']) })
export type ApprovalDecision = z.infer<typeof DecideApprovalInput>['decision']

/** The answer to a decision: the approval as it now stands, and whether this answer decided it. */
export const DecidedApproval = z.object({ approval: Approval, changed: z.boolean() })
export type DecidedApproval = z.infer<typeof DecidedApproval>
