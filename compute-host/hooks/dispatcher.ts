import { createHash } from 'node:crypto'
import { BLOCKING_HOOK_EVENTS, CONTEXT_HOOK_EVENTS, type HookEvent } from '../../db/hook-enums.ts'
import type { Db } from '../../db/index.ts'
import * as Hooks from '../../runtime/hooks/index.ts'
import { matches, readVerdict } from '../../runtime/hooks/verdict.ts'
import type { Redactor } from '../../runtime/redaction.ts'
import { createConfigCache, type ConfigCache, type ConfigSnapshot } from '../config-cache.ts'
import type { Logger } from '../log.ts'
import type { SandboxStatus } from '../workspaces/sandbox-check.ts'
import { runCommandHook } from './command-hook.ts'
import type { HookOutcome } from './hook-outcome.ts'
import { runHttpHook } from './http-hook.ts'

/** Where an event happened; each id lands on the hook run's audit row. */
export type HookScope = {
  sessionId?: string
  taskId?: string
  runId?: string
  workspaceId?: string
}

export type HookDispatch = {
  event: HookEvent
  scope: HookScope
  /** The tool of PreToolUse and PostToolUse; the matcher is read against it. */
  toolName?: string
  data: unknown
  /** The run's configuration snapshot, when the caller has one; else the current one is read. */
  config?: ConfigSnapshot
}

export type MergedVerdict = {
  /** `ask` (PreToolUse only): no hook denied and one handed the decision to the owner. */
  decision: 'allow' | 'deny' | 'ask'
  reason: string | null
  context: string | null
  runIds: string[]
  /** How long an `ask` waits for the owner, in seconds (the first asking hook's choice). */
  askTimeoutS?: number
}

export type HookDispatcher = {
  dispatch(dispatch: HookDispatch): Promise<MergedVerdict>
  /** Runs one hook now on a sample event, audited like any run (the API's test-run). */
  testRun(hookId: string, data: unknown, toolName?: string): Promise<MergedVerdict>
}

const PROTOCOL = 'popagent.hooks/v1'
const MAX_STRING = 32 * 1024
const MAX_BODY = 256 * 1024
const PREVIEW = 2_048
const MAX_CONTEXT = 16 * 1024

/**
 * Runs the hooks of an event. Every matching enabled hook gets the same envelope (redacted with
 * the host's redactor, strings cut at 32 KiB, the whole at 256 KiB) and runs at the same time;
 * each has its audit row written before it starts and completed after. The verdicts merge in
 * (priority, created, id) order, never finishing order: any deny denies, and the reason given is
 * the first explicit deny in that order, else the first failure. With no deny, a PreToolUse
 * hook's `ask` hands the call to the owner (hooks/tool-gate.ts). On a blocking event
 * (UserPromptSubmit, PreToolUse, TaskStart) a failure (timeout, crash, garbage, no sandbox) is a
 * deny; elsewhere it is recorded and ignored. Contexts of allowing hooks join in the same order.
 */
export function createHookDispatcher(deps: {
  db: Db
  /** The host's configuration cache, where the enabled hooks are kept per version. */
  config?: ConfigCache
  redactor: Pick<Redactor, 'redact'>
  sandbox: SandboxStatus
  log: Logger
  /** The vault values bound to a command hook's environment, by variable name. */
  secretEnv?: (hookId: string) => Promise<Record<string, string>>
}): HookDispatcher {
  const { db, redactor } = deps
  const config = deps.config ?? createConfigCache(db)

  async function runAll(rows: Hooks.HookRow[], dispatch: HookDispatch): Promise<MergedVerdict> {
    if (rows.length === 0) return { decision: 'allow', reason: null, context: null, runIds: [] }
    const blocking = BLOCKING_HOOK_EVENTS.includes(dispatch.event)
    const results = await Promise.all(rows.map((row) => runOne(row, dispatch, blocking)))
    const denial =
      results.find((r) => r.outcome === 'deny' && !r.failed) ??
      results.find((r) => r.outcome === 'deny')
    const asking = denial ? undefined : results.find((r) => r.outcome === 'ask')
    const contexts = CONTEXT_HOOK_EVENTS.includes(dispatch.event)
      ? results.flatMap((r) => (r.outcome !== 'deny' && r.context ? [r.context] : []))
      : []
    return {
      decision: denial ? 'deny' : asking ? 'ask' : 'allow',
      reason: denial ? denial.reason : asking ? asking.reason : null,
      context: contexts.length ? contexts.join('\n\n').slice(0, MAX_CONTEXT) : null,
      runIds: results.map((r) => r.id),
      ...(asking?.askTimeoutS !== undefined && { askTimeoutS: asking.askTimeoutS }),
    }
  }

  async function runOne(row: Hooks.HookRow, dispatch: HookDispatch, blocking: boolean) {
    const startedAt = performance.now()
    const body = envelope(row, dispatch, (text) => redactor.redact(text))
    const id = await Hooks.auditStart(db, {
      hookId: row.id,
      hookName: row.name,
      event: dispatch.event,
      sessionId: dispatch.scope.sessionId ?? null,
      taskId: dispatch.scope.taskId ?? null,
      runId: dispatch.scope.runId ?? null,
      toolName: dispatch.toolName ?? null,
      inputSha256: createHash('sha256').update(body).digest('hex'),
      inputPreview: body.slice(0, PREVIEW),
    })
    let outcome: HookOutcome
    try {
      outcome = await execute(row, body)
    } catch (error) {
      outcome = {
        kind: 'failed',
        failure: 'spawn_error',
        reason: `the hook could not run: ${(error as Error).message}`,
      }
    }
    const verdict =
      outcome.kind === 'answer'
        ? readVerdict(outcome.output, { canAsk: dispatch.event === 'PreToolUse' })
        : undefined
    const output = outcome.kind === 'answer' ? outcome.output : (outcome.output ?? null)
    const failed = !verdict?.ok
    const failure = verdict
      ? verdict.ok
        ? null
        : verdict.failure
      : outcome.kind === 'failed'
        ? outcome.failure
        : null
    const failReason =
      verdict && !verdict.ok ? verdict.reason : outcome.kind === 'failed' ? outcome.reason : ''
    const reason = redactor.redact(
      verdict?.ok
        ? (verdict.reason ??
            (verdict.decision === 'deny'
              ? `hook ${row.name} denied it`
              : verdict.decision === 'ask'
                ? `hook ${row.name} asks the owner`
                : ''))
        : `hook ${row.name} failed (${failure}): ${failReason}`,
    )
    const context = verdict?.ok && verdict.context ? redactor.redact(verdict.context) : null
    const result = {
      id,
      failed,
      outcome: (verdict?.ok ? verdict.decision : blocking ? 'deny' : 'failed') as
        'allow' | 'deny' | 'ask' | 'failed',
      reason: reason || null,
      context,
      ...(verdict?.ok && verdict.askTimeoutS !== undefined && { askTimeoutS: verdict.askTimeoutS }),
    }
    await Hooks.auditFinish(db, id, {
      outcome: failed ? 'failed' : result.outcome,
      failure,
      reason: result.reason,
      context,
      outputPreview: output === null ? null : redactor.redact(output).slice(0, PREVIEW),
      durationMs: Math.round(performance.now() - startedAt),
    }).catch((error: unknown) =>
      deps.log.error('could not complete a hook run audit row', { id, error }),
    )
    return result
  }

  async function execute(row: Hooks.HookRow, body: string): Promise<HookOutcome> {
    if (row.kind === 'http')
      return runHttpHook({
        url: row.url!,
        body,
        timeoutMs: row.timeoutMs,
        allowLoopback: row.allowLoopback,
      })
    if (!deps.sandbox.available)
      return {
        kind: 'failed',
        failure: 'sandbox_unavailable',
        reason: `the sandbox is unavailable: ${deps.sandbox.reason}`,
      }
    let env: Record<string, string>
    try {
      env = (await deps.secretEnv?.(row.id)) ?? {}
    } catch (error) {
      const reason = `its bound secrets could not be read: ${(error as Error).message}`
      return { kind: 'failed', failure: 'spawn_error', reason }
    }
    return runCommandHook({ command: row.command!, stdin: body, timeoutMs: row.timeoutMs, env })
  }

  return {
    async dispatch(dispatch) {
      const snapshot = dispatch.config ?? (await config.snapshot())
      const rows = (await snapshot.enabledHooks(dispatch.event)).filter(
        (row) => !isToolEvent(dispatch.event) || matches(row.matcher, dispatch.toolName),
      )
      return runAll(rows, dispatch)
    },
    async testRun(hookId, data, toolName) {
      const row = await Hooks.rowOf(db, hookId)
      return runAll([row], { event: row.event, scope: {}, data, ...(toolName && { toolName }) })
    },
  }
}

const isToolEvent = (event: HookEvent) => event === 'PreToolUse' || event === 'PostToolUse'

/** The JSON the hook reads: redacted, each string bounded, the whole bounded. */
function envelope(
  row: Hooks.HookRow,
  dispatch: HookDispatch,
  redact: (text: string) => string,
): string {
  const document = {
    protocol: PROTOCOL,
    event: dispatch.event,
    hook: { id: row.id, name: row.name },
    session: dispatch.scope.sessionId ?? null,
    task: dispatch.scope.taskId ?? null,
    run: dispatch.scope.runId ?? null,
    workspace: dispatch.scope.workspaceId ?? null,
    ...(dispatch.toolName !== undefined && { toolName: dispatch.toolName }),
    data: dispatch.data,
  }
  // Each string is redacted before it is cut, so a cut never leaves part of a secret behind.
  const bound = (_key: string, value: unknown) => {
    if (typeof value !== 'string') return value
    const clean = redact(value)
    return clean.length > MAX_STRING ? `${clean.slice(0, MAX_STRING)}…[cut]` : clean
  }
  const text = redact(JSON.stringify(document, bound))
  if (text.length <= MAX_BODY) return text
  return redact(
    JSON.stringify({
      ...document,
      data: { truncated: true, preview: text.slice(0, MAX_BODY / 2) },
    }),
  )
}
