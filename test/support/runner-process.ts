/**
 * A task runner in its own process, for tests that kill or race runners: the runner module over
 * postgres.js with a scripted executor that prints `S <task> <attempt> <ms>` when an attempt
 * starts and `E <task> <attempt> <ms>` just before it returns. SIGTERM stops it gracefully.
 *
 * Env: DATABASE_URL, RUNNER_ID, CONCURRENCY, LEASE_MS, POLL_MS.
 */
import { openNodePostgres } from '../../compute-host/database/postgres.ts'
import { createLogger } from '../../compute-host/log.ts'
import { createTaskRunner } from '../../compute-host/tasks/runner.ts'

const env = process.env
const handle = openNodePostgres(env.DATABASE_URL!, { max: 4, applicationName: env.RUNNER_ID })
const out = (line: string) => process.stdout.write(`${line}\n`)

const runner = createTaskRunner({
  handle,
  runnerId: env.RUNNER_ID,
  leaseMs: Number(env.LEASE_MS ?? 1_000),
  backoff: { baseMs: 50, capMs: 200 },
  log: createLogger({ secrets: [], write: (l) => process.stderr.write(`${l}\n`) }),
  redact: (t) => t,
  timing: async () => ({
    concurrency: Number(env.CONCURRENCY ?? 8),
    pollIntervalMs: Number(env.POLL_MS ?? 500),
    timeoutMs: 60_000,
    abortAckMs: 1_000,
    staleAfterMs: 60 * 60_000,
  }),
  async execute(task, context) {
    out(`S ${task.id} ${context.attempt} ${Date.now()}`)
    const [verb, arg] = task.prompt.split(':')
    if (verb === 'sleep') await new Promise((r) => setTimeout(r, Number(arg)))
    out(`E ${task.id} ${context.attempt} ${Date.now()}`)
    return { result: 'ok' }
  },
})

await runner.start()
out(`READY ${runner.runnerId}`)
process.on('SIGTERM', async () => {
  await runner.stop()
  await handle.close()
  process.exit(0)
})
