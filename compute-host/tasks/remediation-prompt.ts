import type { TaskRow } from '../../runtime/tasks/index.ts'

/**
 * What a remediation task is asked to do about its permanently failed parent: how it ended, the
 * original request, the workflow evidence, and the one command that resolves the parent (only on
 * concrete evidence, never on a report of success).
 */
export function remediationPrompt(parent: TaskRow, transcript: string[]): string {
  return [
    `Background task ${parent.id} ended ${parent.state} after ${parent.attemptCount} attempt(s).`,
    `Failure class: ${parent.lastErrorClass ?? 'unknown'}.`,
    `Failure: ${(parent.lastError ?? '').slice(0, 2_000)}`,
    '',
    'Original request:',
    parent.prompt,
    '',
    transcript.length > 0
      ? `Workflow evidence (the newest ${transcript.length} transcript records, oldest first; #n is the attempt):`
      : 'Workflow evidence: the task recorded no transcript.',
    ...transcript,
    '',
    `Look the task up exactly with \`popagent task ${parent.id}\` and investigate why it failed.`,
    'Finish the original request if you can. Only when concrete evidence proves the original',
    `request is satisfied, run \`popagent task-resolve ${parent.id} --evidence "<what proves it>"\`.`,
    'A report of success alone does not resolve the parent task.',
  ].join('\n')
}
