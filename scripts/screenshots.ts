/**
 * `npm run screenshots`: the main pages at desktop and phone sizes, light and the chat dark, from
 * a seeded demo. The demo is the test stack (a real popagent on fresh databases, the scripted
 * model gateway on loopback, a registered repository), so the pictures show what the code does
 * today: a chat whose turn delegated and called a tool, a finished task, the settings.
 *
 *   npm run screenshots                      → test-artifacts/screenshots/demo/*.png
 *   npm run screenshots -- --out docs/screenshots
 *
 * Needs PostgreSQL (TEST_DATABASE_URL, else a throwaway one is started) and Debian's chromium.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type { Page } from 'playwright-core'
import { createWorkspace } from '../test/support/api-fixtures.ts'
import { browserMissing, launchBrowser, VIEWPORTS } from '../test/support/browser.ts'
import { postChat, toolResultsOf } from '../test/support/chat.ts'
import type { RecordedRequest, Reply } from '../test/support/scripted-gateway.ts'
import { startTestStack } from '../test/support/stack.ts'
import { startThrowawayPostgres } from '../test/support/throwaway-postgres.ts'
import { okJson, typedClient } from '../test/support/typed-client.ts'
import { readUiStream } from '../test/support/ui-stream.ts'

const { values } = parseArgs({
  options: { out: { type: 'string', default: 'test-artifacts/screenshots/demo' } },
})
const out = resolve(values.out)
if (browserMissing) throw new Error(browserMissing)

const ANSWER = [
  '## What I found\n\n',
  'The parser stops one token early when the input has no trailing newline, so the last ',
  'statement is dropped.\n\n',
  '1. Read until the end of input, not the last newline.\n',
  '2. Add a test with input that has no trailing newline.\n\n',
  '```ts\nwhile (pos < input.length) statements.push(next())\n```\n',
]

/** Every agent first searches its skills once, then answers: a turn with steps to show. */
const demoTurn = (r: RecordedRequest): Reply =>
  toolResultsOf(r).length === 0
    ? { toolCalls: [{ name: 'skill_search', arguments: { query: 'parser', limit: 3 } }] }
    : { text: ANSWER }

let stopPostgres = async () => {}
if (!process.env.TEST_DATABASE_URL) {
  const server = await startThrowawayPostgres()
  process.env.TEST_DATABASE_URL = server.url
  stopPostgres = server.stop
}
const dir = await mkdtemp(join(tmpdir(), 'popagent-screenshots-'))
const repo = join(dir, 'root', 'parser')
await mkdir(join(repo, '.git'), { recursive: true })
await mkdir(join(repo, 'src'), { recursive: true })
await writeFile(join(repo, 'README.md'), '# parser\n\nA small expression parser.\n')
await writeFile(join(repo, 'src', 'parse.ts'), 'export function parse(input: string) {}\n')

const stack = await startTestStack({
  models: [{ id: 'remote/demo', contextWindow: 131_072 }],
  hostEnv: { POPAGENT_WORKSPACE_ROOT: join(dir, 'root') },
})
const browser = await launchBrowser()
try {
  const url = await stack.listen()
  const api = typedClient(url).api
  stack.gateway.respondWith(demoTurn)
  const workspaceId = await createWorkspace(url, 'parser')
  const session = await okJson(await api.sessions.$post({ json: { workspaceId } }), 201)
  await readUiStream(
    await postChat(url, {
      sessionId: session.id,
      workspaceId,
      text: 'Why does the parser drop the last statement?',
    }),
  )
  const task = await okJson(
    await api.tasks.$post({ json: { workspaceId, prompt: 'Survey the repository' } }),
    201,
  )
  // The task runs on the host; its page is taken once it has finished (or after 20 s).
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    const t = await okJson(await api.tasks[':id'].$get({ param: { id: task.id } }))
    if (t.state !== 'queued' && t.state !== 'running') break
    await new Promise((r) => setTimeout(r, 250))
  }

  const pages: [string, string][] = [
    ['chat-new', '/'],
    ['chat', `/sessions/${session.id}`],
    ['tasks', '/tasks'],
    ['task', `/tasks/${task.id}`],
    ['schedules', '/schedules'],
    ['agents', '/agents'],
    ['workspaces', '/workspaces'],
    ['settings', '/settings'],
    ['observability', '/observability'],
  ]
  await mkdir(out, { recursive: true })
  const page = await browser.page()
  const shoot = async (p: Page, name: string) => {
    await p.waitForLoadState('networkidle')
    await p.waitForTimeout(300)
    const file = join(out, `${name}.png`)
    await p.screenshot({ path: file })
    console.log(file)
  }
  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(viewport)
    for (const [name, path] of pages) {
      await page.goto(`${url}/#${path}`)
      await page.locator('main h1').first().waitFor()
      await shoot(page, `${name}-${size}`)
    }
  }
  // The chat once more as a dark system theme shows it, its steps opened.
  await page.setViewportSize(VIEWPORTS.desktop)
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.goto(`${url}/#/sessions/${session.id}`)
  await page.locator('.activity details').first().waitFor()
  await page.locator('.activity summary').last().click()
  await shoot(page, 'chat-dark-desktop')
} finally {
  await browser.close()
  await stack.stop()
  await stopPostgres()
  await rm(dir, { recursive: true, force: true })
}
