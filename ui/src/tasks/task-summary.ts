import type { Task, TaskActivityRecord } from '../../../runtime/contracts/tasks.ts'
import { num, text } from './activity-record.ts'

/**
 * The supervisor's steps in the newest attempt: how many it used and the bound it ran under.
 * The bound is the settings' step limit, not a plan, so it is shown as "at most", never "of".
 */
export function stepsOf(activity: TaskActivityRecord[], attempt: number) {
  let used = 0
  let max: number | undefined
  let agent: string | undefined
  for (const { record, attempt: a } of activity) {
    if (record.kind !== 'step' || a !== attempt) continue
    used = Math.max(used, num(record, 'step') ?? 0)
    max = num(record, 'maxSteps') ?? max
    agent ??= text(record, 'agentName')
  }
  return { used, max, agent }
}

/** "3 steps used of at most 24" (or "step 3 of at most 24" while the task still runs). */
export function stepsLine(steps: { used: number; max?: number | undefined }, live: boolean) {
  if (steps.used === 0) return undefined
  const bound = steps.max ? ` of at most ${steps.max}` : ''
  if (live) return `step ${steps.used}${bound}`
  return `${steps.used} ${steps.used === 1 ? 'step' : 'steps'} used${bound}`
}

// A chat message of that size is still readable; the task page keeps the whole result.
const QUOTED_CHARS = 6_000

const quote = (value: string) => {
  const cut = value.length > QUOTED_CHARS ? `${value.slice(0, QUOTED_CHARS)}…` : value
  return cut
    .trim()
    .split('\n')
    .map((line) => (line ? `> ${line}` : '>'))
    .join('\n')
}

/** The first draft of a chat that continues a task: its prompt and its result (or error) quoted. */
export function chatDraft(task: Pick<Task, 'title' | 'prompt' | 'result' | 'lastError'>) {
  const outcome = task.result
    ? ['Its result:', quote(task.result)]
    : task.lastError
      ? ['It failed:', quote(task.lastError)]
      : []
  return [
    `Continuing the background task “${task.title}”.`,
    '',
    'Its prompt:',
    quote(task.prompt),
    '',
    ...outcome,
    '',
    '',
  ].join('\n')
}
