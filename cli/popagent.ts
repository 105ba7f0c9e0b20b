#!/usr/bin/env node
/**
 * The `popagent` command. Process entry points (start, host, edge, migrate) run here; operator
 * verbs that talk to a running server join them as the features they drive arrive.
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { ConfigError } from '../compute-host/env.ts'
import { enableOwnCompileCache } from './compile-cache.ts'
import { registerPackageModuleResolve } from './package-module-resolve.ts'

const USAGE = `usage: popagent <command>

  start     run everything in one process (embedded database unless DATABASE_URL is set)
  migrate   apply database migrations and exit
  host      run only the compute host (needs DATABASE_URL and POPAGENT_HOST_TOKEN)
  edge      run only the Node edge server (needs DATABASE_URL and the host's URL and token)

  start and edge protect /api with POPAGENT_API_KEY, or else a key they generate into
  POPAGENT_DATA_DIR/api-key on the first start; the verbs below read the key the same way.

  repo-brief <workspace> <query>
            print a workspace's repository brief from a running popagent (POPAGENT_URL)
  schedules [--json]
            list the cron schedules of a running popagent (POPAGENT_URL)
  schedules history <id> [--json]
            one schedule's newest occurrences: each fired one's task, each skipped one's reason
  tasks [--json]
            list the newest background tasks
  task <id> [--json]
            show one task with its activity transcript
  task-resolve <id> --evidence <text>
            resolve failed, cancelled or dead-lettered work with the evidence that it is done
  secrets-rekey
            re-encrypt every vault secret under POPAGENT_SECRET_KEY, reading the old rows with
            the keys in POPAGENT_SECRET_KEYS_PREVIOUS (comma-separated)
  browser-server [--socket <path>] [--output-max-size <bytes>] [--caps a,b] [--recordings]
            run the reference browser MCP server (Playwright's, on Debian's Chromium) on a
            protected Unix socket, by default POPAGENT_DATA_DIR/browser/mcp.sock (docs/browser.md)
  automation-reconcile [--json]
            give each eligible workspace its self-update schedule; print each one's eligibility
  help      show this text`

const commands: Record<
  string,
  () => Promise<(env: Record<string, string | undefined>, args: string[]) => Promise<void>>
> = {
  start: async () => (await import('./commands/start.ts')).start,
  migrate: async () => (await import('./commands/migrate.ts')).migrate,
  host: async () => (await import('./commands/host.ts')).host,
  edge: async () => (await import('./commands/edge.ts')).edge,
  'repo-brief': async () => (await import('./commands/repo-brief.ts')).repoBrief,
  schedules: async () => (await import('./commands/schedules.ts')).schedules,
  tasks: async () => (await import('./commands/tasks.ts')).tasks,
  task: async () => (await import('./commands/tasks.ts')).task,
  'task-resolve': async () => (await import('./commands/tasks.ts')).taskResolve,
  'secrets-rekey': async () => (await import('./commands/secrets-rekey.ts')).secretsRekey,
  'automation-reconcile': async () => (await import('./commands/autonomy.ts')).automationReconcile,
  'browser-server': async () => (await import('./commands/browser-server.ts')).browserServer,
}

async function main(argv: string[]) {
  // A .env in the working directory, when there is one; the environment wins over it.
  if (existsSync('.env')) process.loadEnvFile('.env')
  const [name] = argv
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    console.log(USAGE)
    return
  }
  const load = commands[name]
  if (!load) {
    console.error(`popagent: unknown command '${name}'\n\n${USAGE}`)
    process.exitCode = 2
    return
  }
  // Before the command's modules load: they are what the cache and the resolve hook make faster.
  enableOwnCompileCache(fileURLToPath(new URL('..', import.meta.url)), process.env)
  registerPackageModuleResolve()
  await (
    await load()
  )(process.env, argv.slice(1))
}

main(process.argv.slice(2)).catch((error: unknown) => {
  // Configuration problems are the operator's to fix: say what, without a stack trace.
  if (
    error instanceof ConfigError ||
    (error instanceof Error && /configuration/.test(error.message))
  ) {
    console.error(`popagent: ${error.message}`)
  } else {
    console.error('popagent: failed:', error)
  }
  process.exit(1)
})
