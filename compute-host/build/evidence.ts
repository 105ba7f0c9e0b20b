import type { BuildEvidence } from '../../runtime/build/evidence.ts'
import type { McpToolOutput } from '../mcp/mcp-tool.ts'
import type { RunObserver } from '../runs/run-events.ts'
import { isBuildToolName } from './operations.ts'

// What of a Build answer is kept beside a reference: scalars only, each bounded.
const DETAIL_KEYS = ['url', 'ref', 'branch', 'commit', 'sha', 'status', 'issue', 'repository']
const DETAIL_CHARS = 500

/**
 * The evidence in one Build operation's answer. Only the server's `structuredContent` counts
 * (what the Build server returned, never the model's prose or its text parts): a CI run from
 * `runs_queue`/`runs_get` (its id, and its branch or ref as a branch), an issue from
 * `issues_*`, a comment from `comments_create`, a branch from `repositories_update`. An answer
 * without the id field it needs gives nothing.
 */
export function evidenceOf(operation: string, structured: unknown): BuildEvidence[] {
  if (!structured || typeof structured !== 'object' || Array.isArray(structured)) return []
  const s = structured as Record<string, unknown>
  const detail: Record<string, unknown> = {}
  for (const key of DETAIL_KEYS) {
    const value = s[key]
    if (typeof value === 'string') detail[key] = value.slice(0, DETAIL_CHARS)
    else if (typeof value === 'number' || typeof value === 'boolean') detail[key] = value
  }
  const id = scalar(s.runId ?? s.id ?? s.number)
  const branch = scalar(s.branch ?? s.ref)
  const out: BuildEvidence[] = []
  const add = (kind: BuildEvidence['kind'], reference: string | undefined) => {
    if (reference) out.push({ kind, reference, operation, detail })
  }
  if (operation === 'runs_queue' || operation === 'runs_get') {
    add('ci-run', id)
    add('branch', branch)
  } else if (operation.startsWith('issues_')) {
    add('issue', scalar(s.number ?? s.id))
  } else if (operation === 'comments_create') {
    add('comment', id)
  } else if (operation === 'repositories_update') {
    add('branch', branch)
  }
  return out
}

/**
 * A run observer that turns the run's events into evidence: every successful `build-*` call's
 * answer (evidenceOf) and every finished delegation (which specialist, so the completion policy
 * can require the maintainer and the independent reviewer). `record` is called in event order.
 */
export function buildEvidenceObserver(record: (evidence: BuildEvidence) => void): RunObserver {
  return (event) => {
    if (event.type === 'tool-end' && isBuildToolName(event.tool) && !event.error) {
      const output = event.output as McpToolOutput | undefined
      if (!output?.ok) return
      for (const row of evidenceOf(output.tool, output.structuredContent)) record(row)
    }
    if (event.type === 'delegation-end' && !event.error) {
      record({ kind: 'delegation', reference: event.agentId, operation: null, detail: null })
    }
  }
}

function scalar(value: unknown): string | undefined {
  if (typeof value === 'string' && value.length > 0) return value
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  return undefined
}
