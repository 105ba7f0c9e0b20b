import { sql } from '../drizzle-orm.ts'
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from '../drizzle-pg-core.ts'
import type {
  FailureClass,
  RevisionOp,
  RevisionTarget,
  SignalKind,
  SignalStatus,
} from '../evolution-enums.ts'
import { timestamps } from './_columns.ts'
import { agents } from './agents.ts'

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

/** The owner's per-agent switch under the global one; no row: the agent follows the global. */
export const evolutionPolicies = pgTable('popagent_evolution_policies', {
  agentId: text()
    .primaryKey()
    .references(() => agents.id, { onDelete: 'cascade' }),
  enabled: boolean().notNull(),
  updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
})

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
