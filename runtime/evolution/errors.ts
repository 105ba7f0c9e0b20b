import { AppError } from '../errors.ts'

export const SignalNotFound = AppError.define(
  'EVOLUTION_SIGNAL_NOT_FOUND',
  404,
  'evolution signal not found',
)
export const SignalNotActionable = AppError.define(
  'EVOLUTION_SIGNAL_STATE',
  409,
  'the signal is not in a state this action applies to',
)
export const RevisionNotFound = AppError.define(
  'EVOLUTION_REVISION_NOT_FOUND',
  404,
  'evolution revision not found',
)
/** The revision was reverted already: one compensating revision per revision. */
export const AlreadyReverted = AppError.define(
  'REVERT_ALREADY_DONE',
  409,
  'this revision has been reverted already',
)
/** The target changed since the revision wrote it (a later revision, or the owner's edit). */
export const RevertStale = AppError.define(
  'REVERT_STALE',
  409,
  'the target no longer matches what this revision wrote',
)
/** A proposal that would carry a secret or reach a boundary that is the owner's alone. */
export const ProposalRefused = AppError.define(
  'EVOLUTION_PROPOSAL_REFUSED',
  422,
  'the proposal was refused',
)
export const EvolutionAgentNotFound = AppError.define(
  'EVOLUTION_AGENT_NOT_FOUND',
  404,
  'agent not found',
)
export const ProposalNotFound = AppError.define(
  'EVOLUTION_PROPOSAL_NOT_FOUND',
  404,
  'evolution proposal not found',
)
/** The target changed since the proposal read it: approving would overwrite that change. */
export const ProposalStale = AppError.define(
  'PROPOSAL_STALE',
  409,
  'the target changed since this proposal was made',
)
/** Approved proposals cannot be rejected, nor rejected ones approved. */
export const ProposalDecided = AppError.define(
  'PROPOSAL_DECIDED',
  409,
  'this proposal was decided already',
)
/** The policy, a gate or the daily limit says no now; the proposal waits unchanged. */
export const ProposalBlocked = AppError.define(
  'PROPOSAL_BLOCKED',
  409,
  'the proposal cannot be applied now',
)
/**
 * The proposal now carries a secret (one added to the vault after it was held): it is not
 * applied, and it is set aside (rejected) with its stored text redacted.
 */
export const ProposalCarriesSecret = AppError.define(
  'PROPOSAL_CARRIES_SECRET',
  409,
  'the proposal carries a secret; it was not applied',
)
