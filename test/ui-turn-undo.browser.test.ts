/**
 * Per-turn undo (B3) in a real browser: a turn edits three files and creates one, the user edits
 * one of them, and the chat shows the turn's changed files with their diffs; Undo (confirmed)
 * restores two, removes the created one and shows the user's file refused, untouched.
 */
import { randomBytes } from 'node:crypto'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { createSession, createWorkspace } from './support/api-fixtures.ts'
import { browserMissing, launchBrowser, screenshotBoth, type Browser } from './support/browser.ts'
import { markRoles, postChat, roleOf, toolResultsOf } from './support/chat.ts'
import type { Reply } from './support/scripted-gateway.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { readUiStream } from './support/ui-stream.ts'

describe('turn changes and undo in the chat', { skip: browserMissing }, () => {
  let stack: TestStack
  let browser: Browser
  let url: string
  let dir: string
  let repo: string
  let workspaceId: string
  before(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'popagent-undo-ui-')))
    repo = join(dir, 'root', 'proj')
    await mkdir(join(repo, 'src'), { recursive: true })
    await mkdir(join(repo, '.git'))
    for (const name of ['a', 'b', 'c']) {
      await writeFile(join(repo, 'src', `${name}.txt`), `${name} line 1\n${name} line 2\n`)
    }
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

  test('the diff view and the Undo button', async () => {
    const sessionId = await createSession(stack.edge(), workspaceId)
    const read = (name: string) => ({ name: 'workspace-read', arguments: { path: `src/${name}` } })
    const edit = (name: string) => ({
      name: 'workspace-edit',
      arguments: {
        path: `src/${name}.txt`,
        old_string: `${name} line 1`,
        new_string: `${name} AGENT`,
      },
    })
    const script: Record<number, Reply> = {
      0: { toolCalls: [read('a.txt'), read('b.txt'), read('c.txt')] },
      3: {
        toolCalls: [
          edit('a'),
          edit('b'),
          edit('c'),
          { name: 'workspace-write', arguments: { path: 'src/new.txt', content: 'brand new\n' } },
        ],
      },
    }
    stack.gateway.respondWith((r) => {
      const done = toolResultsOf(r).length
      if (roleOf(r) === 'orchistrator') {
        return done === 0
          ? { toolCalls: [{ name: 'agent-implementer', arguments: { prompt: 'edit' } }] }
          : { text: 'Edited three files and added one.' }
      }
      if (roleOf(r) === 'implementer') return script[done] ?? { text: 'implemented' }
      return { text: 'n/a' }
    })
    try {
      await readUiStream(
        await postChat(url, { sessionId, workspaceId, model: 'remote/a', text: 'Edit them' }),
      )
    } finally {
      stack.gateway.respondWith(undefined)
    }
    // The user edits one of the agent's files after the turn.
    await writeFile(join(repo, 'src', 'b.txt'), 'b USER\n')

    const page = await browser.page()
    await page.goto(`${url}/#/sessions/${sessionId}`)
    const changes = page.getByRole('region', { name: 'Files changed in this turn' })
    await changes.waitFor()
    assert.match(await changes.innerText(), /4 files changed/)
    const a = changes.locator('li.turn-file[data-path="src/a.txt"]')
    await a.locator('summary').click()
    const diff = a.getByLabel('Diff')
    await diff.waitFor()
    assert.equal(await diff.locator('span.del').innerText(), '-a line 1')
    assert.equal(await diff.locator('span.add').last().innerText(), '+a AGENT')
    // The user's file says up front that undo will leave it.
    assert.match(
      await changes.locator('li.turn-file[data-path="src/b.txt"] summary').innerText(),
      /changed after the agent/,
    )
    await screenshotBoth(page, 'turn-changes')

    await changes.getByRole('button', { name: 'Undo' }).click()
    await changes.getByRole('alertdialog').getByRole('button', { name: 'Undo turn' }).click()
    await changes.getByText('Undone').waitFor()
    const outcome = (path: string) =>
      changes.locator(`li.turn-file[data-path="${path}"] .outcome`).innerText()
    assert.equal(await outcome('src/a.txt'), 'restored')
    assert.equal(await outcome('src/c.txt'), 'restored')
    assert.equal(await outcome('src/new.txt'), 'removed')
    assert.match(await outcome('src/b.txt'), /^refused: the file was changed after the agent/)
    assert.equal(await changes.getByRole('button', { name: 'Undo' }).count(), 0)
    await screenshotBoth(page, 'turn-changes-undone')

    assert.equal(await readFile(join(repo, 'src', 'a.txt'), 'utf8'), 'a line 1\na line 2\n')
    assert.equal(await readFile(join(repo, 'src', 'b.txt'), 'utf8'), 'b USER\n')
    assert.equal(existsSync(join(repo, 'src', 'new.txt')), false)
    await page.close()
  })
})
