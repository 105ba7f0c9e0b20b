/**
 * Files that run code later (issue 14, hole 6) in a real browser: the Workspaces page's switch
 * lets the owner allow agents to edit them, saved through the API; and a turn whose shell made a
 * `.gitattributes` shows a warning above its changed files and on that file.
 */
import { randomBytes } from 'node:crypto'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { checkSandbox } from '../compute-host/workspaces/sandbox-check.ts'
import { createSession, createWorkspace } from './support/api-fixtures.ts'
import { browserMissing, launchBrowser, screenshotBoth, type Browser } from './support/browser.ts'
import { markRoles, postChat, roleOf, toolResultsOf } from './support/chat.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient } from './support/typed-client.ts'
import { readUiStream } from './support/ui-stream.ts'

const sandbox = await checkSandbox()

describe('files that run code later in the UI', { skip: browserMissing }, () => {
  let stack: TestStack
  let browser: Browser
  let url: string
  let dir: string
  let repo: string
  let workspaceId: string
  before(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'popagent-ui-exectrigger-')))
    repo = join(dir, 'root', 'proj')
    await mkdir(join(repo, 'src'), { recursive: true })
    execFileSync('git', ['init', '-q'], { cwd: repo })
    stack = await startTestStack({
      models: [{ id: 'remote/a' }],
      hostEnv: {
        POPAGENT_WORKSPACE_ROOT: join(dir, 'root'),
        // Undo keeps contents only encrypted under the vault key (undo/blob-cipher.ts).
        POPAGENT_SECRET_KEY: randomBytes(32).toString('base64'),
      },
    })
    url = await stack.listen()
    await markRoles(stack, ['orchistrator', 'researcher', 'implementer'])
    workspaceId = await createWorkspace(stack.edge(), 'proj')
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await stack?.stop()
    await rm(dir, { recursive: true, force: true })
  })

  const allowed = async () =>
    (await okJson(await typedClient(stack.edge()).api.workspaces.$get())).workspaces.find(
      (w) => w.id === workspaceId,
    )!.allowExecTriggerWrites

  test('the owner allows agents to edit them in one workspace with a labelled switch', async () => {
    const page = await browser.page()
    await page.goto(`${url}/#/workspaces`)
    const toggle = page.getByRole('switch', { name: 'Let agents edit files that run code in proj' })
    await toggle.waitFor()
    assert.equal(await toggle.isChecked(), false)
    assert.match(
      (await toggle.getAttribute('aria-describedby')) ?? '',
      /^exec-trigger-note$/,
      'the switch is described by its sentence',
    )
    assert.match(await page.locator('#exec-trigger-note').innerText(), /\.gitattributes/)
    const row = page.locator('tr', { has: toggle })
    await toggle.check()
    await row.getByText('allowed', { exact: true }).waitFor()
    assert.equal(await allowed(), true)
    await page.reload()
    assert.equal(await toggle.isChecked(), true)
    await screenshotBoth(page, 'workspaces-exec-triggers')
    await toggle.uncheck()
    await row.getByText('refused', { exact: true }).waitFor()
    assert.equal(await allowed(), false)
    await page.close()
  })

  test(
    'a turn whose shell made a .gitattributes warns before the owner commits',
    { skip: !sandbox.available && sandbox.reason },
    async () => {
      const sessionId = await createSession(stack.edge(), workspaceId)
      stack.gateway.respondWith((r) => {
        const done = toolResultsOf(r).length
        if (roleOf(r) === 'orchistrator') {
          return done === 0
            ? { toolCalls: [{ name: 'agent-implementer', arguments: { prompt: 'edit' } }] }
            : { text: 'Done.' }
        }
        if (roleOf(r) !== 'implementer') return { text: 'n/a' }
        return done === 0
          ? {
              toolCalls: [
                {
                  name: 'shell',
                  arguments: {
                    command: "printf '* filter=x\\n' > .gitattributes && echo ok > src/ok.txt",
                  },
                },
              ],
            }
          : { text: 'implemented' }
      })
      try {
        await readUiStream(
          await postChat(url, { sessionId, workspaceId, model: 'remote/a', text: 'Edit' }),
        )
      } finally {
        stack.gateway.respondWith(undefined)
      }
      const page = await browser.page()
      await page.goto(`${url}/#/sessions/${sessionId}`)
      const changes = page.getByRole('region', { name: 'Files changed in this turn' })
      await changes.waitFor()
      assert.match(
        await changes.getByRole('note').innerText(),
        /a file that runs code on your machine later \(\.gitattributes\): review it before you commit/,
      )
      const flagged = changes.locator('li.turn-file[data-path=".gitattributes"]')
      assert.match(await flagged.locator('summary').innerText(), /runs code later/)
      await flagged.locator('summary').click()
      assert.match(await flagged.locator('p.runs-code').innerText(), /filter, diff and merge/)
      const plain = changes.locator('li.turn-file[data-path="src/ok.txt"]')
      assert.equal(await plain.getByText('runs code later').count(), 0)
      await screenshotBoth(page, 'turn-changes-runs-code')
      await page.close()
    },
  )
})
