import { TERMINAL_TASK_STATES } from '../../db/task-enums.ts'
import type { Db } from '../../db/index.ts'
import type { Task } from '../contracts/tasks.ts'
import { assertExists } from '../workspaces/index.ts'
import { TaskActive, TaskNotRetryable } from './errors.ts'
import { enqueue, getRow, toTask } from './index.ts'

// The contract's ceiling for a client's maxAttempts: a transient outage may have raised the
// original's (failure-policy.ts), and the retry starts from what the owner could have asked for.
const MAX_ASKED_ATTEMPTS = 10

/**
 * A new task with a finished task's prompt, title, workspace, model, session and budget, as the
 * owner would queue it again by hand: source `user`, no schedule or occurrence. Live work is a
 * 409 (it may still finish); self-update and remediation work is refused, since run outside its
 * workflow (its gates, its parent's tools) it would not be the same work.
 */
export async function retry(db: Db, id: string): Promise<Task> {
  const original = await getRow(db, id)
  if (!(TERMINAL_TASK_STATES as readonly string[]).includes(original.state)) {
    throw new TaskActive({ id, state: original.state })
  }
  if (original.source !== 'user' || original.kind !== 'agent') {
    throw new TaskNotRetryable({ id, source: original.source, kind: original.kind })
  }
  await assertExists(db, original.workspaceId)
  const row = await enqueue(db, {
    source: 'user',
    workspaceId: original.workspaceId,
    title: original.title,
    prompt: original.prompt,
    model: original.model,
    sessionId: original.sessionId,
    maxAttempts: Math.min(original.maxAttempts, MAX_ASKED_ATTEMPTS),
    budget: original.budget,
    deliverToBindingId: original.deliverToBindingId,
  })
  return toTask(row)
}
