import { sql } from '../drizzle-orm.ts'
import { check, index, jsonb, pgTable, text, timestamp, uniqueIndex } from '../drizzle-pg-core.ts'
import { timestamps } from './_columns.ts'
import { channelBindings } from './channels.ts'
import { evolutionProposals } from './evolution.ts'

/**
 * Approvals (X6): a question the run asks the owner and waits on — a tool call a PreToolUse hook
 * answered `ask` for (`tool-call`), or a self-update patch the model reviewer approved, when the
 * host asks the owner too (`self-update-patch`), or a learned change held for review, asked on the
 * conversation the owner named for evolution (`evolution-proposal`, `proposal_id`). `summary` is the call's arguments as the redactor left them, cut short:
 * what the owner reads before answering, never a secret. The first answer wins (`status` leaves
 * `pending` once); a question nobody answers by `expires_at` is `expired`, which denies.
 * `binding_id` is the channel conversation it is also asked on, when there is one.
 */
export const approvals = pgTable(
  'popagent_approvals',
  {
    id: text().primaryKey(),
    kind: text().$type<'tool-call' | 'self-update-patch' | 'evolution-proposal'>().notNull(),
    toolName: text(),
    summary: text().notNull(),
    /** Why it is asked (the hook's reason), shown with the question. */
    reason: text(),
    sessionId: text(),
    taskId: text(),
    runId: text(),
    /** The held proposal an `evolution-proposal` approval asks about (one approval each). */
    proposalId: text().references(() => evolutionProposals.id, { onDelete: 'cascade' }),
    bindingId: text().references(() => channelBindings.id, { onDelete: 'set null' }),
    status: text().$type<'pending' | 'allowed' | 'denied' | 'expired'>().notNull(),
    /** `owner-web`, or `channel:<channel id>:<sender id>`; null while pending or once expired. */
    decidedBy: text(),
    decidedAt: timestamp({ withTimezone: true, mode: 'date' }),
    expiresAt: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    /** Extra facts for the UI (the agent that asked); never secret. */
    details: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    ...timestamps,
  },
  (t) => [
    index('popagent_approvals_pending')
      .on(t.expiresAt)
      .where(sql`${t.status} = 'pending'`),
    index('popagent_approvals_recent').on(t.createdAt),
    uniqueIndex('popagent_approvals_proposal')
      .on(t.proposalId)
      .where(sql`${t.proposalId} is not null`),
    check(
      'popagent_approvals_kind',
      sql`${t.kind} in ('tool-call', 'self-update-patch', 'evolution-proposal')`,
    ),
    check(
      'popagent_approvals_status',
      sql`${t.status} in ('pending', 'allowed', 'denied', 'expired')`,
    ),
    check(
      'popagent_approvals_decided',
      sql`(${t.status} in ('allowed', 'denied')) = (${t.decidedBy} is not null)`,
    ),
  ],
)
