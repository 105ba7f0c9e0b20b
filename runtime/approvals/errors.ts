import { AppError } from '../errors.ts'

export const ApprovalNotFound = AppError.define('APPROVAL_NOT_FOUND', 404, 'approval not found')

/** An evolution proposal's question is answered by approving or rejecting the proposal. */
export const AnsweredWithProposal = AppError.define(
  'ANSWERED_WITH_PROPOSAL',
  409,
  'this question is answered by approving or rejecting its evolution proposal (/api/autonomy/proposals/:id/approve or /reject)',
)
