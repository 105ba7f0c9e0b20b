import { and, asc, desc, eq, inArray } from '../../db/drizzle-orm.ts'
import { looksLikeMcpToolName } from '../mcp-servers/tool-names.ts'
import type { HookEvent } from '../../db/hook-enums.ts'
import type { Db } from '../../db/index.ts'
import { hookRuns, hooks, secretBindings } from '../../db/schema/index.ts'
import type { CreateHookInput, Hook, HookRun, PatchHookInput } from '../contracts/hooks.ts'
import { createId } from '../ids.ts'
import { TOOL_CATALOG } from '../agents/tool-catalog.ts'
import { classifyUrlHost } from '../net/address-class.ts'
import { HookInvalid, HookNotFound } from './errors.ts'

/**
 * Hook definitions and their audit trail. Running hooks is the compute host's (compute-host/
 * hooks/); these functions store what the API accepted and what the host recorded.
 */
export type HookRow = typeof hooks.$inferSelect
export type HookRunRow = typeof hookRuns.$inferSelect

/**
 * An https URL to a public host, or a loopback one (either scheme) only with the owner's explicit
 * consent. An address literal is judged here, in whatever notation it was written (the URL parser
 * turns `2130706433` and `0x7f.1` into 127.0.0.1); a name is judged by what it resolves to when the
 * compute host connects (compute-host/net/outbound-guard.ts), since DNS can answer anything later.
 */
export function checkHookUrl(url: string, allowLoopback: boolean): string {
  const parsed = new URL(url)
  const refuse = (why: string) => new HookInvalid({ field: 'url' }, { message: why })
  if (parsed.username || parsed.password) throw refuse('the URL may not carry user info')
  const place = classifyUrlHost(parsed.hostname)
  if (place?.kind === 'forbidden')
    throw refuse(
      `${parsed.hostname} is ${place.what}: an HTTP hook may only call a public address (or loopback with allowLoopback)`,
    )
  const loopback = place?.kind === 'loopback'
  if (loopback && !allowLoopback)
    throw refuse(
      `${parsed.hostname} is a loopback address: it needs allowLoopback: true (the owner must mean a local server)`,
    )
  if (!loopback && parsed.protocol !== 'https:') throw refuse('an HTTP hook must use https')
  if (loopback && parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw refuse('an HTTP hook must use http or https')
  return parsed.toString()
}

/**
 * A matcher must be able to match something: an exact name of the tool catalog, a delegation
 * (`agent-…`) or an MCP server's tool (`<server>__…`), or a prefix of one. A misspelt matcher would otherwise guard nothing, silently.
 */
export function checkMatcher(matcher: string): string {
  if (matcher === '*') return matcher
  const names = [...Object.keys(TOOL_CATALOG), 'agent-']
  const prefix = matcher.endsWith('*') ? matcher.slice(0, -1) : undefined
  const known =
    (prefix
      ? names.some((n) => n.startsWith(prefix) || prefix.startsWith('agent-'))
      : names.includes(matcher) || (matcher.startsWith('agent-') && matcher.length > 6)) ||
    // An MCP server's tool (`<server>__<tool>`): the server may be defined after the hook.
    looksLikeMcpToolName(prefix ?? matcher)
  if (!known) {
    throw new HookInvalid(
      { field: 'matcher', code: 'unknown_tool' },
      { message: `no tool is named ${prefix ? `${prefix}…` : matcher}` },
    )
  }
  return matcher
}

export function toHook(row: HookRow): Hook {
  return {
    id: row.id,
    name: row.name,
    event: row.event,
    matcher: row.matcher,
    kind: row.kind,
    command: row.command ?? null,
    url: row.url,
    allowLoopback: row.allowLoopback,
    timeoutMs: row.timeoutMs,
    priority: row.priority,
    enabled: row.enabled,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }
}

export async function list(db: Db): Promise<Hook[]> {
  const rows = await db
    .select()
    .from(hooks)
    .orderBy(asc(hooks.event), ...mergeOrder)
  return rows.map(toHook)
}

export async function rowOf(db: Db, id: string): Promise<HookRow> {
  const [row] = await db.select().from(hooks).where(eq(hooks.id, id))
  if (!row) throw new HookNotFound({ id })
  return row
}

export async function create(db: Db, input: CreateHookInput): Promise<Hook> {
  const target =
    input.kind === 'command'
      ? { command: input.command, url: null, allowLoopback: false }
      : {
          command: null,
          url: checkHookUrl(input.url, input.allowLoopback),
          allowLoopback: input.allowLoopback,
        }
  const [row] = await db
    .insert(hooks)
    .values({
      id: createId('hook'),
      name: input.name,
      event: input.event,
      matcher: checkMatcher(input.matcher),
      kind: input.kind,
      ...target,
      timeoutMs: input.timeoutMs,
      priority: input.priority,
      enabled: input.enabled,
    })
    .returning()
  return toHook(row!)
}

export async function patch(db: Db, id: string, changes: PatchHookInput): Promise<Hook> {
  const row = await rowOf(db, id)
  if (row.kind === 'command' && (changes.url !== undefined || changes.allowLoopback !== undefined))
    throw new HookInvalid({ field: 'url' }, { message: 'a command hook has no URL' })
  if (row.kind === 'http' && changes.command !== undefined)
    throw new HookInvalid({ field: 'command' }, { message: 'an HTTP hook has no command' })
  if (changes.matcher !== undefined) checkMatcher(changes.matcher)
  const allowLoopback = changes.allowLoopback ?? row.allowLoopback
  const url = row.kind === 'http' ? checkHookUrl(changes.url ?? row.url!, allowLoopback) : null
  const [updated] = await db
    .update(hooks)
    .set({
      ...changes,
      ...(row.kind === 'http' && { url, allowLoopback }),
      updatedAt: new Date(),
    })
    .where(eq(hooks.id, id))
    .returning()
  return toHook(updated!)
}

export async function remove(db: Db, id: string): Promise<void> {
  const deleted = await db.transaction(async (tx) => {
    // Its secret bindings go with it: a later hook can never inherit them.
    await tx
      .delete(secretBindings)
      .where(and(eq(secretBindings.kind, 'hook_env'), eq(secretBindings.target, id)))
    return tx.delete(hooks).where(eq(hooks.id, id)).returning({ id: hooks.id })
  })
  if (deleted.length === 0) throw new HookNotFound({ id })
}

// The order verdicts merge in: never the order hooks happen to finish.
const mergeOrder = [asc(hooks.priority), asc(hooks.createdAt), asc(hooks.id)]

/** The enabled hooks of an event, in merge order. */
export function enabledFor(db: Db, event: HookEvent): Promise<HookRow[]> {
  return db
    .select()
    .from(hooks)
    .where(and(eq(hooks.event, event), eq(hooks.enabled, true)))
    .orderBy(...mergeOrder)
}

export type AuditStart = Pick<
  HookRunRow,
  | 'hookId'
  | 'hookName'
  | 'event'
  | 'sessionId'
  | 'taskId'
  | 'runId'
  | 'toolName'
  | 'inputSha256'
  | 'inputPreview'
>

/** The audit row of a hook run, written before the hook starts. */
export async function auditStart(db: Db, start: AuditStart): Promise<string> {
  const id = createId('hookRun')
  await db.insert(hookRuns).values({ id, ...start, outcome: 'running' })
  return id
}

/** Completes a run's audit row, once: a row already completed is left as it is. */
export async function auditFinish(
  db: Db,
  id: string,
  end: Pick<
    HookRunRow,
    'outcome' | 'failure' | 'reason' | 'context' | 'outputPreview' | 'durationMs'
  >,
): Promise<void> {
  await db
    .update(hookRuns)
    .set({ ...end, finishedAt: new Date() })
    .where(and(eq(hookRuns.id, id), eq(hookRuns.outcome, 'running')))
}

export function toHookRun(row: HookRunRow): HookRun {
  return {
    id: row.id,
    hookId: row.hookId,
    hookName: row.hookName,
    event: row.event,
    sessionId: row.sessionId,
    taskId: row.taskId,
    toolName: row.toolName,
    outcome: row.outcome,
    failure: row.failure as HookRun['failure'],
    reason: row.reason,
    context: row.context,
    inputPreview: row.inputPreview,
    outputPreview: row.outputPreview,
    startedAt: row.startedAt.toISOString(),
    durationMs: row.durationMs,
  }
}

/** The newest 500 hook runs of a session or a task, newest first. */
export async function runsOf(
  db: Db,
  scope: { sessionId: string } | { taskId: string },
): Promise<HookRun[]> {
  const where =
    'sessionId' in scope
      ? eq(hookRuns.sessionId, scope.sessionId)
      : eq(hookRuns.taskId, scope.taskId)
  const rows = await db
    .select()
    .from(hookRuns)
    .where(where)
    .orderBy(desc(hookRuns.startedAt), desc(hookRuns.id))
    .limit(500)
  return rows.map(toHookRun)
}

/** The audit rows of these runs, in the order given. */
export async function runsByIds(db: Db, ids: readonly string[]): Promise<HookRun[]> {
  if (ids.length === 0) return []
  const rows = await db
    .select()
    .from(hookRuns)
    .where(inArray(hookRuns.id, [...ids]))
  const byId = new Map(rows.map((r) => [r.id, r]))
  return ids.flatMap((id) => (byId.has(id) ? [toHookRun(byId.get(id)!)] : []))
}
