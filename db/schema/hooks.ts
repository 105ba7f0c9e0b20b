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
} from '../drizzle-pg-core.ts'
import type { HookEvent, HookKind, HookRunOutcome } from '../hook-enums.ts'
import { timestamps } from './_columns.ts'

/**
 * Hooks (X3), stored here and only here: no hook file in a repository ever runs. A command hook
 * is an argv (no shell string) run in the bubblewrap sandbox; an HTTP hook is a URL that gets the
 * event as a POST. `matcher` picks tools for the tool events (`*`, an exact name or a `prefix*`).
 */
export const hooks = pgTable(
  'popagent_hooks',
  {
    id: text().primaryKey(),
    name: text().notNull(),
    event: text().$type<HookEvent>().notNull(),
    matcher: text().notNull(),
    kind: text().$type<HookKind>().notNull(),
    command: jsonb().$type<string[]>(),
    url: text(),
    /** The owner's explicit consent to an http:// loopback URL (a local policy server). */
    allowLoopback: boolean().notNull(),
    timeoutMs: integer().notNull(),
    /** Lower runs first in the merge; ties by creation time, then id. */
    priority: integer().notNull(),
    enabled: boolean().notNull(),
    ...timestamps,
  },
  (t) => [
    index('popagent_hooks_event_idx').on(t.event),
    check('popagent_hooks_kind', sql`${t.kind} in ('command', 'http')`),
    check(
      'popagent_hooks_target',
      sql`(${t.kind} = 'command' and ${t.command} is not null and ${t.url} is null) or (${t.kind} = 'http' and ${t.url} is not null and ${t.command} is null)`,
    ),
    check('popagent_hooks_timeout', sql`${t.timeoutMs} between 100 and 120000`),
  ],
)

/**
 * The audit trail: one row per hook run, written `running` before the hook starts and completed
 * once after, with redacted, bounded previews of what went in and came out. Kept when the hook is
 * deleted (its id and name stay on the row).
 */
export const hookRuns = pgTable(
  'popagent_hook_runs',
  {
    id: text().primaryKey(),
    hookId: text().notNull(),
    hookName: text().notNull(),
    event: text().$type<HookEvent>().notNull(),
    sessionId: text(),
    taskId: text(),
    runId: text(),
    toolName: text(),
    outcome: text().$type<HookRunOutcome>().notNull(),
    failure: text(),
    reason: text(),
    context: text(),
    inputSha256: text().notNull(),
    inputPreview: text().notNull(),
    outputPreview: text(),
    startedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    finishedAt: timestamp({ withTimezone: true, mode: 'date' }),
    durationMs: integer(),
  },
  (t) => [
    index('popagent_hook_runs_session_idx').on(t.sessionId, t.startedAt),
    index('popagent_hook_runs_task_idx').on(t.taskId, t.startedAt),
    check(
      'popagent_hook_runs_outcome',
      sql`${t.outcome} in ('running', 'allow', 'deny', 'ask', 'failed')`,
    ),
  ],
)
