import type { Schedule } from '../../runtime/contracts/schedules.ts'
import { serverApi } from '../server-api.ts'
import { formatTable } from '../table.ts'
import { errorMessage } from '../../runtime/error-message.ts'

/**
 * `popagent schedules [--json]`: lists the cron schedules of a running popagent through the same
 * HTTP route the UI uses, as a table (or the API's JSON with `--json`).
 */
export async function schedules(env: Record<string, string | undefined>, args: string[]) {
  if (args.some((a) => a !== '--json')) {
    console.error('usage: popagent schedules [--json]')
    process.exitCode = 2
    return
  }
  try {
    const { api, ok } = serverApi(env)
    const body = await ok(api.schedules.$get())
    if (args.includes('--json')) {
      process.stdout.write(`${JSON.stringify(body, null, 2)}\n`)
      return
    }
    process.stdout.write(formatSchedules(body.schedules))
  } catch (error) {
    // Operator-facing: the reason, no stack.
    console.error(`popagent schedules: ${errorMessage(error)}`)
    process.exitCode = 1
  }
}

export function formatSchedules(list: Schedule[]): string {
  if (list.length === 0) return 'no schedules\n'
  const rows = [
    ['ID', 'ON', 'CRON', 'NEXT RUN', 'TRIES', 'SOURCE', 'WORKSPACE', 'NAME'],
    ...list.map((s) => [
      s.id,
      s.enabled ? 'yes' : 'no',
      s.cron,
      s.nextRunAt ?? '-',
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
