import { z } from 'zod'
import { idSchema } from '../ids.ts'
import {
  FAILURE_CLASSES,
  PROPOSAL_STATUSES,
  REVISION_OPS,
  REVISION_TARGETS,
  SIGNAL_KINDS,
  SIGNAL_STATUSES,
} from '../../db/evolution-enums.ts'

/** Agent evolution (issue 39): signals, revisions, the per-agent switch, and a worker pass. */
export const EvolutionSignal = z.object({
  id: z.string(),
  agentId: z.string(),
  kind: z.enum(SIGNAL_KINDS),
  failureClass: z.enum(FAILURE_CLASSES),
  traceId: z.string(),
  traceIds: z.array(z.string()),
  sessionId: z.string().nullable(),
  /** Redacted and bounded: `Goal: …` then `Failure: …` or `Outcome: …`. */
  evidence: z.string(),
  occurrences: z.number(),
  status: z.enum(SIGNAL_STATUSES),
  attempts: z.number(),
  lastError: z.string().nullable(),
  /** What the worker made of it. */
  outcome: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type EvolutionSignal = z.infer<typeof EvolutionSignal>
export const EvolutionSignalList = z.object({ signals: z.array(EvolutionSignal) })

export const SignalListQuery = z.strictObject({
  status: z.enum(SIGNAL_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
})

export const EvolutionRevision = z.object({
  id: z.string(),
  agentId: z.string(),
  targetKind: z.enum(REVISION_TARGETS),
  targetKey: z.string(),
  op: z.enum(REVISION_OPS),
  strategy: z.string(),
  before: z.record(z.string(), z.unknown()).nullable(),
  after: z.record(z.string(), z.unknown()).nullable(),
  revertsRevisionId: z.string().nullable(),
  /** The compensating revision that reverted this one, if any. */
  revertedBy: z.string().nullable(),
  signalIds: z.array(z.string()),
  traceIds: z.array(z.string()),
  evidence: z.string(),
  rationale: z.string(),
  /**
   * How the change did (an overlay or skill change whose signals are still kept; null
   * otherwise): its agent's runs in the window before it and after it, and how many failed with
   * the classes it was made for. A full window after it with a higher rate is reverted.
   */
  measured: z
    .object({
      window: z.number(),
      classes: z.array(z.enum(FAILURE_CLASSES)),
      runsBefore: z.number(),
      failuresBefore: z.number(),
      runsAfter: z.number(),
      failuresAfter: z.number(),
    })
    .nullable(),
  createdAt: z.string(),
})
export type EvolutionRevision = z.infer<typeof EvolutionRevision>
export const EvolutionRevisionList = z.object({ revisions: z.array(EvolutionRevision) })

export const EvolutionPolicies = z.object({
  /** The global switches (also on the settings page). */
  evolutionEnabled: z.boolean(),
  skillCreationEnabled: z.boolean(),
  automaticFactRetention: z.boolean(),
  /** Learned changes wait in the review queue unless an agent says otherwise. */
  reviewByDefault: z.boolean(),
  /**
   * The channel conversation (binding) held proposals are also asked on, with approve and reject
   * buttons for the owner; null: the Autonomy page and the API only.
   */
  reviewBindingId: z.string().nullable(),
  /** Each agent's own switch (off wins over the global one) and its review choice. */
  agents: z.array(
    z.object({
      agentId: z.string(),
      name: z.string(),
      enabled: z.boolean(),
      /** The agent's own choice; null follows `reviewByDefault`. */
      review: z.boolean().nullable(),
      /** What applies to it now. */
      reviews: z.boolean(),
    }),
  ),
})
export type EvolutionPolicies = z.infer<typeof EvolutionPolicies>
export const AgentPolicyPatch = z
  .strictObject({ enabled: z.boolean().optional(), review: z.boolean().nullable().optional() })
  .refine((p) => p.enabled !== undefined || p.review !== undefined, {
    message: 'name enabled, review or both',
  })
export type AgentPolicyPatch = z.infer<typeof AgentPolicyPatch>
export const EvolutionDefaultsPatch = z
  .strictObject({
    reviewByDefault: z.boolean().optional(),
    reviewBindingId: idSchema('channelBinding').nullable().optional(),
  })
  .refine((p) => p.reviewByDefault !== undefined || p.reviewBindingId !== undefined, {
    message: 'name reviewByDefault, reviewBindingId or both',
  })
export type EvolutionDefaultsPatch = z.infer<typeof EvolutionDefaultsPatch>

/** A learned change held for the owner's review, with its evidence and what it would write. */
export const EvolutionProposal = z.object({
  id: z.string(),
  agentId: z.string(),
  targetKind: z.enum(REVISION_TARGETS),
  targetKey: z.string(),
  strategy: z.string(),
  before: z.record(z.string(), z.unknown()).nullable(),
  after: z.record(z.string(), z.unknown()).nullable(),
  signalIds: z.array(z.string()),
  traceIds: z.array(z.string()),
  evidence: z.string(),
  rationale: z.string(),
  status: z.enum(PROPOSAL_STATUSES),
  /** The revision approval appended. */
  revisionId: z.string().nullable(),
  decidedAt: z.string().nullable(),
  createdAt: z.string(),
})
export type EvolutionProposal = z.infer<typeof EvolutionProposal>
export const EvolutionProposalList = z.object({ proposals: z.array(EvolutionProposal) })
export const ProposalListQuery = z.strictObject({ status: z.enum(PROPOSAL_STATUSES).optional() })
export const ProposalParams = z.strictObject({ id: idSchema('evolutionProposal') })

/** One pass of the evolution worker: what it claimed and what came of it. */
export const EvolutionPass = z.object({
  recovered: z.number(),
  claimed: z.number(),
  processed: z.number(),
  ignored: z.number(),
  failed: z.number(),
  revisions: z.array(z.string()),
  /** Proposals the pass held for the owner's review (agents under review). */
  held: z.array(z.string()),
  /** Compensating revisions the pass appended for changes the same failures followed. */
  reverted: z.array(z.string()),
})
export type EvolutionPass = z.infer<typeof EvolutionPass>

export const SignalParams = z.strictObject({ id: idSchema('evolutionSignal') })
export const RevisionParams = z.strictObject({ id: idSchema('evolutionRevision') })
export const AgentPolicyParams = z.strictObject({ agentId: z.string().min(1).max(64) })

/** What reflection would change now, for the pending signals, without changing anything. */
export const EvolutionDryRun = z.object({
  proposals: z.array(
    z.object({
      agentId: z.string(),
      signalIds: z.array(z.string()),
      strategy: z.string(),
      decision: z.enum(['change', 'no-action', 'refused', 'ignored', 'failed']),
      targetKey: z.string().nullable(),
      before: z.record(z.string(), z.unknown()).nullable(),
      after: z.record(z.string(), z.unknown()).nullable(),
      reason: z.string().nullable(),
    }),
  ),
})
export type EvolutionDryRun = z.infer<typeof EvolutionDryRun>
