/**
 * A compute host as production runs it: `popagent host` in its own process, configured only by
 * its environment. Its runner id is `host-<hostname>-<pid>` (compute-host/main.ts), which is what
 * the task rows' `claimed_by` names, so a test can tell whose claims a kill left behind.
 */
import { hostname } from 'node:os'
import { startCli, type RunningCli } from '../../../support/process.ts'

export const HOST_TOKEN = 'fault-suite-host-token-0123456789'

export type HostProcess = {
  name: string
  cli: RunningCli
  runnerId: string
  exited: Promise<number | null>
  /** What it printed apart from its JSON log lines: a crash's error and stack. */
  lastWords(): string
  /** How many of its JSON log lines carry this message. */
  logged(message: string): number
  /** True while the process runs. */
  alive(): boolean
  /** SIGKILL: no shutdown, no released claims, exactly like a crashed machine. */
  kill(): Promise<void>
  /** SIGTERM and a graceful stop (for the end of a test). */
  stop(): Promise<void>
}

export type HostEnvironment = {
  databaseUrl: string
  observabilityUrl: string
  gatewayUrl: string
  workspaceRoot: string
  leaseMs: number
  /** More of the host's environment (a test's own knob, e.g. the outbox lease). */
  extra?: Record<string, string>
}

export async function startHostProcess(name: string, env: HostEnvironment): Promise<HostProcess> {
  const cli = await startCli(
    ['host'],
    {
      DATABASE_URL: env.databaseUrl,
      OBSERVABILITY_DATABASE_URL: env.observabilityUrl,
      NINEROUTER_URL: env.gatewayUrl,
      POPAGENT_HOST_TOKEN: HOST_TOKEN,
      // One vault key for every host on the database, as a real deployment has.
      POPAGENT_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
      POPAGENT_HOST_PORT: '0',
      POPAGENT_WORKSPACE_ROOT: env.workspaceRoot,
      POPAGENT_TASK_LEASE_MS: String(env.leaseMs),
      ...env.extra,
    },
    // Two busy cores and a second host starting alongside: start-up may be slow.
    90_000,
  )
  const exited = new Promise<number | null>((resolve) => {
    if (cli.child.exitCode !== null) resolve(cli.child.exitCode)
    cli.child.on('exit', (code) => resolve(code))
  })
  const alive = () => cli.child.exitCode === null && cli.child.signalCode === null
  return {
    name,
    cli,
    runnerId: `host-${hostname()}-${cli.child.pid}`,
    exited,
    alive,
    lastWords: () =>
      cli
        .output()
        .split('\n')
        .filter((line) => !line.startsWith('{'))
        .join('\n')
        .slice(0, 3_000),
    logged: (message) => cli.output().split(`"message":${JSON.stringify(message)}`).length - 1,
    async kill() {
      if (alive()) cli.child.kill('SIGKILL')
      await exited
    },
    async stop() {
      if (!alive()) return
      cli.child.kill('SIGTERM')
      const timer = setTimeout(() => cli.child.kill('SIGKILL'), 15_000)
      await exited
      clearTimeout(timer)
    },
  }
}
