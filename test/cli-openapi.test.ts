/**
 * The CLI help and the OpenAPI document agree: every verb `popagent help` lists is either a
 * process entry point or an API verb this test knows, and every request an API verb sends names
 * a method and path the document (built from the router) describes. A verb added to the help, or
 * a verb that calls a route the API no longer has, fails here.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { describe, test } from 'node:test'
import { automationReconcile } from '../cli/commands/autonomy.ts'
import { repoBrief } from '../cli/commands/repo-brief.ts'
import { schedules } from '../cli/commands/schedules.ts'
import { task, taskResolve, tasks } from '../cli/commands/tasks.ts'
import { app } from '../handlers/app.ts'
import { buildOpenApi } from '../handlers/openapi/document.ts'

// Verbs that run popagent itself rather than call a running one (browser-server runs the reference
// browser MCP server on its socket, a process apart from popagent).
const PROCESS_VERBS = [
  'start',
  'migrate',
  'host',
  'edge',
  'secrets-rekey',
  'browser-server',
  'help',
]

type Verb = (env: Record<string, string | undefined>, args: string[]) => Promise<void>
const API_VERBS: Record<string, [Verb, string[]]> = {
  'repo-brief': [repoBrief, ['default', 'where are the routes']],
  schedules: [schedules, []],
  'schedules history': [schedules, ['history', 'sch_00000000000000000000000000']],
  tasks: [tasks, []],
  task: [task, ['tsk_00000000000000000000000000']],
  'task-resolve': [taskResolve, ['tsk_00000000000000000000000000', '--evidence', 'done']],
  'automation-reconcile': [automationReconcile, []],
}

// Enough of an answer for a verb to reach its next request; anything else is a 404.
const ANSWERS: Record<string, unknown> = {
  'GET /api/workspaces': { workspaces: [{ id: 'wsp_default', name: 'default' }] },
}

function helpVerbs(): string[] {
  const help = execFileSync(process.execPath, ['cli/popagent.ts', 'help'], { encoding: 'utf8' })
  return [...new Set([...help.matchAll(/^ {2}([a-z][\w-]*)(?= |$)/gm)].map((m) => m[1]!))]
}

/** The `METHOD /path` of every request the verb sends, answered without a server. */
async function requestsOf(verb: Verb, args: string[]): Promise<string[]> {
  const sent: string[] = []
  const { fetch } = globalThis
  const stdout = process.stdout.write
  const error = console.error
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init)
    const key = `${request.method} ${new URL(request.url).pathname}`
    sent.push(key)
    const body = ANSWERS[key] ?? { error: { code: 'NOT_FOUND', message: 'not here' } }
    return Response.json(body, { status: key in ANSWERS ? 200 : 404 })
  }
  process.stdout.write = () => true
  console.error = () => {}
  try {
    await verb({ POPAGENT_URL: 'http://127.0.0.1:9', POPAGENT_API_KEY: 'k'.repeat(32) }, args)
  } finally {
    globalThis.fetch = fetch
    process.stdout.write = stdout
    console.error = error
    process.exitCode = undefined
  }
  return sent
}

describe('the CLI and the OpenAPI document', () => {
  const { document } = buildOpenApi(app)
  const documented = Object.entries(document.paths).flatMap(([template, item]) =>
    Object.keys(item).map((method) => ({
      method: method.toUpperCase(),
      pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`),
      route: `${method.toUpperCase()} ${template}`,
    })),
  )

  test('every verb in the help is a process entry point or a known API verb', () => {
    const verbs = helpVerbs()
    assert.ok(verbs.includes('tasks'), verbs.join(' '))
    assert.deepEqual(
      verbs.filter((v) => !PROCESS_VERBS.includes(v)).sort(),
      // A verb's subcommands ('schedules history') are that verb in the help.
      [...new Set(Object.keys(API_VERBS).map((name) => name.split(' ')[0]!))].sort(),
    )
  })

  test('every request an API verb sends is a route in the document', async () => {
    const all: string[] = []
    for (const [name, [verb, args]] of Object.entries(API_VERBS)) {
      const sent = await requestsOf(verb, args)
      assert.ok(sent.length > 0, `${name} sent no request`)
      all.push(...sent)
      for (const request of sent) {
        const [method, path] = request.split(' ')
        assert.ok(
          documented.some((d) => d.method === method && d.pattern.test(path!)),
          `popagent ${name} sends ${request}, which the document does not describe`,
        )
      }
    }
    // The answers above let a two-step verb reach its second request.
    assert.ok(all.includes('GET /api/workspaces/wsp_default/repo-brief'), all.join(', '))
    assert.ok(all.includes('POST /api/tasks/tsk_00000000000000000000000000/resolve'))
  })
})
