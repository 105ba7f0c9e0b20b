/**
 * The evolution vocabulary (issue 39), import-free so the schema, the contracts, the worker and
 * the UI share one list.
 */

/** Where a signal came from. */
export const SIGNAL_KINDS = [
  'task-failed',
  'task-remediated',
  'loop-stop',
  'budget-stop',
  'hook-deny',
  'negative-feedback',
  'user-correction',
] as const
export type SignalKind = (typeof SIGNAL_KINDS)[number]

/** What kind of failure it was: the key the strategies and their overlays are chosen by. */
export const FAILURE_CLASSES = [
  'task-error',
  'tool-error',
  'timeout',
  'repeated-call',
  'budget-exhausted',
  'policy-denied',
  'unhelpful-answer',
  'misunderstood-request',
] as const
export type FailureClass = (typeof FAILURE_CLASSES)[number]

export const SIGNAL_STATUSES = ['pending', 'claimed', 'processed', 'ignored', 'dead'] as const
export type SignalStatus = (typeof SIGNAL_STATUSES)[number]

/**
 * The closed set of things reflection may choose. The model picks one; it never writes prompt or
 * skill text (overlays and skills come from code-owned catalogs), and only `retain-fact` carries
 * words of its own: one bounded fact under a semantic key.
 */
export const STRATEGIES = [
  'no-action',
  'retain-fact',
  'overlay-apply',
  'overlay-retire',
  'skill-install',
  'skill-retire',
] as const
export type Strategy = (typeof STRATEGIES)[number]

export const REVISION_TARGETS = ['overlay', 'fact', 'skill'] as const
export type RevisionTarget = (typeof REVISION_TARGETS)[number]

export const REVISION_OPS = ['create', 'amend', 'retire', 'revert'] as const
export type RevisionOp = (typeof REVISION_OPS)[number]

/** A learned change held for review: waiting, applied on approval, or discarded. */
export const PROPOSAL_STATUSES = ['pending', 'approved', 'rejected'] as const
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number]
