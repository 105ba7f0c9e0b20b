/**
 * A turn read as steps: each activity item (a delegation, a tool call, a guard's stop, the context
 * the run gathered) becomes one line with who did what, its state and its time. Pure, no Solid or
 * DOM: Node imports this file in test/ui-chat-steps.test.ts.
 */
import type { AgentActivity } from '../../../runtime/contracts/chat.ts'
import type { ActivityPart } from './reducer.ts'

/** Context the run gathers before the agents work: shown collapsed, it is rarely what matters. */
export const CONTEXT_TOOLS = new Set(['recall', 'repo-brief'])

export type StepState = AgentActivity['status'] | 'denied'

export type Step = {
  id: string
  data: AgentActivity
  /** Context gathering (recall, repository brief): collapsed by default. */
  context: boolean
  /** What the step does, in the owner's words. */
  action: string
  state: StepState
  /** A hook's own reason for a deny (not the text written for the model). */
  denyReason?: string
  /** For a running delegation: what the specialist is doing now. */
  current?: string
}

// The tool gate tells the model "Denied by policy (a PreToolUse hook): <reason>. This decision is
// final: …" (compute-host/hooks/tool-gate.ts), as the guard's message and as the refused call's
// error (or, for a delegation, its output); the owner wants the reason, not the instruction.
const HOOK_DENY = /Denied by policy \(a PreToolUse hook\): ([\s\S]*?)\. This decision is final/

export function hookReason(text: string | undefined): string | undefined {
  return text ? HOOK_DENY.exec(text)?.[1] : undefined
}

function actionOf(d: AgentActivity): string {
  if (d.kind === 'delegation') return 'delegated task'
  if (d.tool === 'repo-brief') return 'read the repository brief'
  if (d.tool === 'recall') return 'recalled memory'
  if (d.kind === 'guard') {
    if (d.tool === 'hook') return `hook denied ${d.input ?? 'a call'}`
    return `${d.tool ?? 'guard'} stopped ${d.input ?? 'the run'}`
  }
  return d.tool ?? 'tool'
}

/** The items as steps, in order; a running delegation names its specialist's latest action. */
export function stepsOf(items: readonly ActivityPart[]): Step[] {
  return items.map((item, index) => {
    const d = item.data
    const hookGuard = d.kind === 'guard' && d.tool === 'hook'
    // The guard's own line, or the refused call itself.
    const reason =
      hookReason(d.error) ?? (d.kind === 'delegation' ? hookReason(d.output) : undefined)
    const step: Step = {
      id: item.id,
      data: d,
      context: d.kind === 'tool' && CONTEXT_TOOLS.has(d.tool ?? ''),
      action: actionOf(d),
      state: hookGuard || reason !== undefined ? 'denied' : d.status,
      ...(reason !== undefined && { denyReason: reason }),
    }
    if (d.kind === 'delegation' && d.status === 'running') {
      // The delegation is named after its specialist, as are the specialist's own calls.
      const latest = items.slice(index + 1).findLast((i) => i.data.agentName === d.agentName)
      if (latest) step.current = actionOf(latest.data)
    }
    return step
  })
}

/**
 * A tool's arguments or result for reading: JSON indented (the host sends it on one line), other
 * text as it is. A summary cut at its bound is not JSON any more and shows as sent.
 */
export function pretty(text: string): string {
  const trimmed = text.trim()
  if (!/^[[{]/.test(trimmed)) return text
  try {
    return JSON.stringify(JSON.parse(trimmed), null, 2)
  } catch {
    return text
  }
}

/** A duration as a step shows it: 850 ms, 4.2 s, 2 min 05 s. */
export function elapsed(ms: number): string {
  const safe = Math.max(0, Math.round(ms))
  if (safe < 1000) return `${safe} ms`
  if (safe < 60_000) return `${(safe / 1000).toFixed(1)} s`
  const s = Math.floor(safe / 1000)
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`
}

/** How long a step has taken: its duration once ended, else the time since it started. */
export function stepTime(d: AgentActivity, now: number): number | undefined {
  if (d.durationMs !== undefined) return d.durationMs
  const started = Date.parse(d.startedAt)
  return Number.isNaN(started) ? undefined : Math.max(0, now - started)
}

/** What the turn is doing now, for the working line under a streaming reply. */
export function workingOn(steps: readonly Step[], hasText: boolean): string {
  const running = steps.findLast((s) => s.state === 'running')
  if (running) {
    const who = running.data.agentName
    return running.current ? `${who}: ${running.current}` : `${who}: ${running.action}`
  }
  return hasText ? 'Writing the answer' : 'Thinking'
}
