import type { TaskWorkflow } from '../../runtime/contracts/tasks.ts'
import { serverApi } from '../server-api.ts'
import { formatTable } from '../table.ts'
import { errorMessage } from '../../runtime/error-message.ts'

/**
 * Operator verbs for background tasks, over the same HTTP routes the UI uses:
 *   popagent tasks [--json]                       the newest tasks
 *   popagent task <id> [--json]                   one task with its activity transcript
 *   popagent task-resolve <id> --evidence <text>  resolve failed, cancelled or dead-lettered work
 */
export async function tasks(env: Record<string, string | undefined>, args: string[]) {
  if (args.some((a) => a !== '--json')) return usage('popagent tasks [--json]')
  await run('tasks', async () => {
    const { api, ok } = serverApi(env)
    const body = await ok(api.tasks.$get({ query: {} }))
    if (args.includes('--json')) return json(body)
    if (body.tasks.length === 0) return process.stdout.write('no tasks\n')
    process.stdout.write(
      formatTable([
        ['ID', 'STATE', 'TRIES', 'SOURCE', 'WORKSPACE', 'CREATED', 'TITLE'],
        ...body.tasks.map((t) => [
          t.id,
          // A queued task that waits for a dependency says which.
          t.waiting ? `${t.state} (${t.waiting.errorClass})` : t.state,
          `${t.attemptCount}/${t.maxAttempts}`,
          t.source,
          t.workspaceId,
          t.createdAt,
          t.title,
        ]),
      ]),
    )
  })
}

export async function task(env: Record<string, string | undefined>, args: string[]) {
  const [id, ...rest] = args
  if (!id || rest.some((a) => a !== '--json')) return usage('popagent task <id> [--json]')
  await run('task', async () => {
    const { api, ok } = serverApi(env)
    const body = await ok(api.tasks[':id'].workflow.$get({ param: { id } }))
    if (rest.includes('--json')) return json(body)
    process.stdout.write(formatTask(body))
  })
}

export async function taskResolve(env: Record<string, string | undefined>, args: string[]) {
  const [id, flag, ...words] = args
  const evidence = words.join(' ').trim()
  if (!id || flag !== '--evidence' || !evidence) {
    return usage('popagent task-resolve <id> --evidence <what proves the request is satisfied>')
  }
  await run('task-resolve', async () => {
    const { api, ok } = serverApi(env)
    const resolved = await ok(api.tasks[':id'].resolve.$post({ param: { id }, json: { evidence } }))
    process.stdout.write(`${resolved.id} is now ${resolved.state}\n`)
  })
}

export function formatTask({ task, activity }: TaskWorkflow): string {
  const lines = [
    `${task.id}  ${task.state}  attempt ${task.attemptCount}/${task.maxAttempts}`,
    `title:      ${task.title}`,
    `source:     ${task.source} (${task.kind})  workspace: ${task.workspaceId}`,
    ...(task.sessionId ? [`session:    ${task.sessionId}`] : []),
    ...(task.scheduleId ? [`schedule:   ${task.scheduleId} at ${task.occurrenceAt}`] : []),
    ...(task.parentTaskId ? [`remediates: ${task.parentTaskId}`] : []),
    ...(task.model ? [`model:      ${task.model}`] : []),
    `created:    ${task.createdAt}${task.finishedAt ? `  finished: ${task.finishedAt}` : ''}`,
    ...(task.waiting
      ? [
          `waiting:    for a transient ${task.waiting.errorClass} failure to clear; next attempt at ${task.waiting.nextAttemptAt}`,
        ]
      : []),
    ...(task.lastErrorClass
      ? [`last error: [${task.lastErrorClass}] ${task.lastError ?? ''}`]
      : []),
    ...(task.resolutionEvidence ? [`resolution: ${task.resolutionEvidence}`] : []),
    '',
    'prompt:',
    indent(task.prompt),
    ...(task.result ? ['', 'result:', indent(task.result)] : []),
    '',
    `activity (${activity.length} records, newest 256 kept):`,
    ...activity.map((a) => `  #${a.attempt} ${summarise(a.record)}`),
  ]
  return `${lines.join('\n')}\n`
}

function summarise(record: Record<string, unknown>): string {
  const { kind, agentName, tool, status, step, finishReason, text, error } = record as Record<
    string,
    unknown
  >
  const parts = [kind, agentName, tool, status, step !== undefined && `step ${step}`, finishReason]
  const detail = String(error ?? text ?? '').replace(/\s+/g, ' ')
  return [...parts.filter(Boolean), detail && `— ${detail.slice(0, 120)}`].filter(Boolean).join(' ')
}

const indent = (text: string) => text.replace(/^/gm, '  ')
const json = (body: unknown) => void process.stdout.write(`${JSON.stringify(body, null, 2)}\n`)

function usage(text: string) {
  console.error(`usage: ${text}`)
  process.exitCode = 2
}

async function run(verb: string, work: () => Promise<unknown>) {
  try {
    await work()
  } catch (error) {
    // Operator-facing: the reason, no stack.
    console.error(`popagent ${verb}: ${errorMessage(error)}`)
    process.exitCode = 1
  }
}
