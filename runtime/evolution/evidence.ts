import type { FailureClass, SignalKind } from '../../db/evolution-enums.ts'
import { sha256Hex } from '../docs/sha256.ts'

// Bounds of the two halves of a signal's evidence (the column allows 1,200 characters in all).
const GOAL_MAX = 400
const RESULT_MAX = 600

/** Trims to `max` characters, marking the cut, after whitespace is collapsed. */
export function bound(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

/**
 * A signal's evidence: `Goal:` and then `Failure:` (what went wrong) or `Outcome:` (what came of
 * it: a remediation's result, the owner's feedback). Redacted before it is bounded, so a cut can
 * never leave half a secret that the redactor would no longer recognise.
 */
export function evidenceText(
  goal: string,
  result: { failure: string } | { outcome: string },
  redact: (text: string) => string,
): string {
  const [label, text] =
    'failure' in result ? ['Failure', result.failure] : ['Outcome', result.outcome]
  const goalText = bound(redact(goal), GOAL_MAX) || '(not recorded)'
  const resultText = bound(redact(text), RESULT_MAX) || '(no detail)'
  return `Goal: ${goalText}\n${label}: ${resultText}`
}

/**
 * The subject that makes two signals "the same": lowercase, numbers and ids folded, whitespace
 * collapsed, so the same task failing on another day lands on the open row.
 */
export function normalizedSubject(text: string): string {
  return text
    .toLowerCase()
    .replace(/\b[a-z]{3}_[0-9a-z]{26}\b/g, '<id>')
    .replace(/[0-9]+/g, '#')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300)
}

export function fingerprint(parts: {
  kind: SignalKind
  agentId: string
  failureClass: FailureClass
  subject: string
}): Promise<string> {
  return sha256Hex(
    JSON.stringify([
      parts.kind,
      parts.agentId,
      parts.failureClass,
      normalizedSubject(parts.subject),
    ]),
  )
}
