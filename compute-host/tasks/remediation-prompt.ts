import type { TaskRow } from '../../runtime/tasks/index.ts'

/**
 * What a remediation task is asked to do about its permanently failed parent: how it ended, the
 * original request, the workflow evidence, and the tools that read it in full and resolve the parent
 * (only on concrete evidence, never on a report of success).
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
    `Read task ${parent.id} in full with your task-evidence tool (what \`popagent task ${parent.id}\``,
    'shows an operator) and investigate why it failed. Finish the original request if you can.',
    'Only when concrete evidence proves the original request is satisfied, resolve the task with',
    'your task-resolve tool, giving that evidence. A report of success alone does not resolve it.',
  ].join('\n')
}
