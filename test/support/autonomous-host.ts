/**
 * One "host" for the one-autonomous-task race: a real task runner (its attempts sleep a little
 * and complete) and a loop that keeps trying to queue a self-update task, as a scheduler or an
 * immediate request would, for DURATION_MS. Prints `DONE {"created":n,"refused":n}` at the end.
 *
 * Env: DATABASE_URL, HOST_ID, WORKSPACE_ID, DURATION_MS.
 */
import { and, eq, inArray } from '../../db/drizzle-orm.ts'
import { openNodePostgres } from '../../compute-host/database/postgres.ts'
import { createLogger } from '../../compute-host/log.ts'
import { createTaskRunner } from '../../compute-host/tasks/runner.ts'
import { tasks } from '../../db/schema/index.ts'
import { AutonomousTaskActive } from '../../runtime/self-update/autonomous-slot.ts'
import { enqueue } from '../../runtime/tasks/index.ts'

const env = process.env
const handle = openNodePostgres(env.DATABASE_URL!, { max: 4, applicationName: env.HOST_ID })
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const runner = createTaskRunner({
  handle,
  runnerId: env.HOST_ID,
  leaseMs: 2_000,
  log: createLogger({ secrets: [], write: (l) => process.stderr.write(`${l}\n`) }),
  redact: (t) => t,
  timing: async () => ({
    concurrency: 4,
    pollIntervalMs: 50,
    timeoutMs: 60_000,
    abortAckMs: 1_000,
    staleAfterMs: 60 * 60_000,
  }),
  async execute() {
    await sleep(15 + Math.random() * 15)
    return { result: 'ok' }
  },
})
await runner.start()

let created = 0
let refused = 0
const until = Date.now() + Number(env.DURATION_MS ?? 3_000)
while (Date.now() < until) {
  try {
    await enqueue(handle.db, {
      source: 'self-update',
      workspaceId: env.WORKSPACE_ID!,
      title: `from ${env.HOST_ID}`,
      prompt: 'improve something',
      maxAttempts: 1,
    })
    created++
  } catch (error) {
    if (!(error instanceof AutonomousTaskActive)) throw error
    refused++
  }
  await sleep(Math.random() * 4)
}
// Both hosts' runners stay up until the last task queued anywhere has run, so none is left
// behind for a runner that already stopped.
const drainUntil = Date.now() + 10_000
while (Date.now() < drainUntil) {
  const active = await handle.db
    .select({ id: tasks.id })
    .from(tasks)
    .where(
      and(
        eq(tasks.source, 'self-update'),
        inArray(tasks.state, ['queued', 'running', 'cancelling']),
      ),
    )
  if (active.length === 0) break
  await sleep(20)
}
await runner.stop()
await handle.close()
process.stdout.write(`DONE ${JSON.stringify({ created, refused })}\n`)
