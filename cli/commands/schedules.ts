import type { Schedule, ScheduleOccurrence } from '../../runtime/contracts/schedules.ts'
import { serverApi } from '../server-api.ts'
import { formatTable } from '../table.ts'
import { errorMessage } from '../../runtime/error-message.ts'

const USAGE = 'usage: popagent schedules [--json] | popagent schedules history <id> [--json]'

/**
 * `popagent schedules [--json]`: lists the cron schedules of a running popagent through the same
 * HTTP route the UI uses, as a table (or the API's JSON with `--json`).
 * `popagent schedules history <id> [--json]`: one schedule's newest 50 occurrences, fired (with
 * the task) or skipped (with the reason), through `GET /api/schedules/:id/history`.
 */
export async function schedules(env: Record<string, string | undefined>, args: string[]) {
  if (args[0] === 'history') return history(env, args.slice(1))
  if (args.some((a) => a !== '--json')) return usage()
  await run(async () => {
    const { api, ok } = serverApi(env)
    const body = await ok(api.schedules.$get())
    if (args.includes('--json')) return json(body)
    process.stdout.write(formatSchedules(body.schedules))
  })
}

async function history(env: Record<string, string | undefined>, args: string[]) {
  const [id, ...rest] = args
  if (!id || id.startsWith('-') || rest.some((a) => a !== '--json')) return usage()
  await run(async () => {
    const { api, ok } = serverApi(env)
    const body = await ok(api.schedules[':id'].history.$get({ param: { id }, query: {} }))
    if (rest.includes('--json')) return json(body)
    process.stdout.write(formatHistory(body.history))
  })
}

function usage() {
  console.error(USAGE)
  process.exitCode = 2
}

const json = (body: unknown) => process.stdout.write(`${JSON.stringify(body, null, 2)}\n`)

async function run(work: () => Promise<unknown>) {
  try {
    await work()
  } catch (error) {
    // Operator-facing: the reason, no stack.
    console.error(`popagent schedules: ${errorMessage(error)}`)
    process.exitCode = 1
  }
}

export function formatSchedules(list: Schedule[]): string {
  if (list.length === 0) return 'no schedules\n'
  const rows = [
    ['ID', 'ON', 'CRON', 'NEXT RUN', 'CATCH-UP', 'SKIPPED', 'TRIES', 'SOURCE', 'WORKSPACE', 'NAME'],
    ...list.map((s) => [
      s.id,
      s.enabled ? 'yes' : 'no',
      s.cron,
      s.nextRunAt ?? '-',
      s.catchUp,
      String(s.skippedCount),
      String(s.maxAttempts),
      s.source,
      s.workspaceId,
      s.name,
    ]),
  ]
  const table = formatTable(rows)
  const timezone = list[0]!.timezone ?? 'unknown (the compute host did not answer)'
  return `${table}\ncron times are in the server's timezone: ${timezone}\n`
}

export function formatHistory(list: ScheduleOccurrence[]): string {
  if (list.length === 0) return 'no occurrences yet\n'
  return formatTable([
    ['OCCURRENCE', 'OUTCOME', 'TASK', 'REASON'],
    ...list.map((o) => [o.occurrenceAt, o.outcome, o.taskId ?? '-', o.reason ?? '-']),
  ])
}
