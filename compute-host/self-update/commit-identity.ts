/**
 * The fixed author, committer and date of a self-update commit. The date is the task's creation
 * time, not the clock, so the commit rebuilt in the owner's repository has the same id as the one
 * made in the clone: same tree, same parent, same message, same identity, same date.
 */
export function commitEnvironment(createdAt: Date): Record<string, string> {
  const date = `${Math.floor(createdAt.getTime() / 1000)} +0000`
  return {
    GIT_AUTHOR_NAME: 'popagent self-update',
    GIT_AUTHOR_EMAIL: 'self-update@popagent.invalid',
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_NAME: 'popagent self-update',
    GIT_COMMITTER_EMAIL: 'self-update@popagent.invalid',
    GIT_COMMITTER_DATE: date,
  }
}

/** One line of subject from the plan, the task and digest as trailers; control characters dropped. */
export function commitMessage(input: { summary: string; taskId: string; digest: string }): string {
  // eslint-disable-next-line no-control-regex
  const subject = input.summary
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .trim()
    .slice(0, 72)
  return `${subject || 'self-update'}\n\nPopagent-Task: ${input.taskId}\nPopagent-Patch-Digest: ${input.digest}\n`
}
