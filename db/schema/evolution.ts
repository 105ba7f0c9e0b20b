import { sql } from '../drizzle-orm.ts'
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from '../drizzle-pg-core.ts'
import type {
  FailureClass,
  ProposalStatus,
  RevisionOp,
  RevisionTarget,
  SignalKind,
  SignalStatus,
} from '../evolution-enums.ts'
import { timestamps } from './_columns.ts'
import { agents } from './agents.ts'
import { channelBindings } from './channels.ts'

/**
 * Evidence that an agent got something wrong (issue 39): a failed or remediated task, a loop or
 * budget stop, a hook denial, a thumbs-down. Each carries the real trace id of its run and a
 * bounded, redacted Goal/Outcome or Goal/Failure text. A repeat of an open signal (same
 * fingerprint) adds an occurrence and its trace to it instead of a row. The evolution worker
 * claims due rows in batches under a lease (`claimed_by`, `lease_expires_at`).
 */
export const evolutionSignals = pgTable(
  'popagent_evolution_signals',
  {
    id: text().primaryKey(),
    agentId: text().notNull(),
    kind: text().$type<SignalKind>().notNull(),
    failureClass: text().$type<FailureClass>().notNull(),
    fingerprint: text().notNull(),
    traceId: text().notNull(),
    traceIds: text().array().notNull(),
    sessionId: text(),
    evidence: text().notNull(),
    occurrences: integer().notNull().default(1),
    status: text().$type<SignalStatus>().notNull().default('pending'),
    attempts: integer().notNull().default(0),
    claimedBy: text(),
    leaseExpiresAt: timestamp({ withTimezone: true, mode: 'date' }),
    nextAttemptAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    lastError: text(),
    /** What the worker made of it: the strategy applied, or why nothing was. */
    outcome: text(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('popagent_evolution_signals_open_fingerprint')
      .on(t.fingerprint)
      .where(sql`${t.status} in ('pending', 'claimed')`),
    index('popagent_evolution_signals_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.status} = 'pending'`),
    index('popagent_evolution_signals_recent_idx').on(t.createdAt),
    check(
      'popagent_evolution_signals_status',
      sql`${t.status} in ('pending', 'claimed', 'processed', 'ignored', 'dead')`,
    ),
    check('popagent_evolution_signals_trace', sql`char_length(${t.traceId}) between 1 and 128`),
    check(
      'popagent_evolution_signals_evidence',
      sql`char_length(${t.evidence}) between 1 and 1200`,
    ),
  ],
)

/**
 * The owner's per-agent switches under the global ones; no row: the agent follows the global.
 * `review`: true holds this agent's learned changes for the owner's review, false applies them,
 * null follows `popagent_evolution_defaults.review`.
 */
export const evolutionPolicies = pgTable('popagent_evolution_policies', {
  agentId: text()
    .primaryKey()
    .references(() => agents.id, { onDelete: 'cascade' }),
  enabled: boolean().notNull().default(true),
  review: boolean(),
  updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
})

/** Evolution's own global defaults (one row, seeded by migration 0029). */
export const evolutionDefaults = pgTable(
  'popagent_evolution_defaults',
  {
    id: boolean().primaryKey().default(true),
    /** Hold learned changes for review unless an agent says otherwise. */
    review: boolean().notNull().default(false),
    /** The channel conversation held proposals are also asked on (approve or reject there). */
    reviewBindingId: text().references(() => channelBindings.id, { onDelete: 'set null' }),
    updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [check('popagent_evolution_defaults_singleton', sql`${t.id}`)],
)

/**
 * A learned change held for the owner's review: what the worker would have applied (strategy,
 * target, the before it read and the after it would write, the hash of that before), with its
 * evidence. Approval applies it through the worker's transaction and only while the target still
 * hashes to `before_sha256`; rejection discards it. `decision_key` is the claimed batch's, so a
 * replayed batch holds one proposal, and the approved revision carries the same key.
 */
export const evolutionProposals = pgTable(
  'popagent_evolution_proposals',
  {
    id: text().primaryKey(),
    agentId: text()
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    targetKind: text().$type<RevisionTarget>().notNull(),
    targetKey: text().notNull(),
    strategy: text().notNull(),
    before: jsonb().$type<Record<string, unknown> | null>(),
    after: jsonb().$type<Record<string, unknown> | null>(),
    beforeSha256: text().notNull(),
    decisionKey: text().notNull(),
    signalIds: text().array().notNull(),
    traceIds: text().array().notNull(),
    sessionId: text(),
    evidence: text().notNull(),
    rationale: text().notNull(),
    status: text().$type<ProposalStatus>().notNull().default('pending'),
    revisionId: text(),
    decidedAt: timestamp({ withTimezone: true, mode: 'date' }),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('popagent_evolution_proposals_decision').on(t.decisionKey),
    index('popagent_evolution_proposals_status_idx').on(t.status, t.createdAt),
    check(
      'popagent_evolution_proposals_kind',
      sql`${t.targetKind} in ('overlay', 'fact', 'skill')`,
    ),
    check(
      'popagent_evolution_proposals_status',
      sql`${t.status} in ('pending', 'approved', 'rejected')`,
    ),
  ],
)

/**
 * Learned guidance, one row per agent and code-owned catalog entry, kept apart from
 * `popagent_agents.instructions` and composed after them on every run. `head_revision_id` is the
 * revision that last wrote the row: a change or revert applies only while it is still the head.
 */
export const learnedOverlays = pgTable(
  'popagent_learned_overlays',
  {
    id: text().primaryKey(),
    agentId: text()
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    catalogId: text().notNull(),
    text: text().notNull(),
    state: text().$type<'active' | 'retired'>().notNull(),
    headRevisionId: text().notNull(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('popagent_learned_overlays_agent_catalog').on(t.agentId, t.catalogId),
    check('popagent_learned_overlays_state', sql`${t.state} in ('active', 'retired')`),
    check('popagent_learned_overlays_text', sql`char_length(${t.text}) between 1 and 1000`),
  ],
)

/**
 * Every learned change, append-only (triggers refuse UPDATE, DELETE and TRUNCATE): the target's
 * state before and after as full snapshots, the signals and traces that justified it, and, for a
 * revert, the revision it compensates (at most one revert per revision). `decision_key` makes a
 * replayed decision (a worker that died after its model call) apply once.
 */
export const evolutionRevisions = pgTable(
  'popagent_evolution_revisions',
  {
    id: text().primaryKey(),
    agentId: text().notNull(),
    targetKind: text().$type<RevisionTarget>().notNull(),
    targetKey: text().notNull(),
    op: text().$type<RevisionOp>().notNull(),
    strategy: text().notNull(),
    before: jsonb().$type<Record<string, unknown> | null>(),
    after: jsonb().$type<Record<string, unknown> | null>(),
    afterSha256: text().notNull(),
    revertsRevisionId: text(),
    decisionKey: text(),
    signalIds: text().array().notNull(),
    traceIds: text().array().notNull(),
    evidence: text().notNull(),
    rationale: text().notNull(),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('popagent_evolution_revisions_one_revert')
      .on(t.revertsRevisionId)
      .where(sql`${t.revertsRevisionId} is not null`),
    uniqueIndex('popagent_evolution_revisions_decision')
      .on(t.decisionKey)
      .where(sql`${t.decisionKey} is not null`),
    index('popagent_evolution_revisions_target_idx').on(t.targetKind, t.targetKey, t.createdAt),
    check(
      'popagent_evolution_revisions_kind',
      sql`${t.targetKind} in ('overlay', 'fact', 'skill')`,
    ),
    check(
      'popagent_evolution_revisions_op',
      sql`${t.op} in ('create', 'amend', 'retire', 'revert')`,
    ),
  ],
)

/**
 * One row per run (a chat turn or a task attempt) and agent that took part: the supervisor and
 * each specialist it delegated to. `failure_classes` gains a class when a signal of that class
 * is recorded for the run (before or after the run's own row), so a run with none went well as
 * far as evolution can tell. The worker measures a learned change by its agent's failure rate
 * over the runs before and after it (compute-host/evolution/regressions.ts).
 */
export const evolutionRuns = pgTable(
  'popagent_evolution_runs',
  {
    traceId: text().notNull(),
    agentId: text().notNull(),
    failureClasses: text()
      .array()
      .$type<FailureClass[]>()
      .notNull()
      .default(sql`'{}'`),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'popagent_evolution_runs_pk', columns: [t.traceId, t.agentId] }),
    index('popagent_evolution_runs_agent_idx').on(t.agentId, t.createdAt),
  ],
)
