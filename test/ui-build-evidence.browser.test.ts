/**
 * The task page shows a build-maintenance task's evidence (issue 40): each recorded fact with its
 * kind, reference, operation and attempt, and a link only for an http(s) URL the Build server
 * returned; other tasks show no such section. Real stack, real browser; the rows are written by
 * the same `recordBuildEvidence` the executor uses.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { tasks } from '../db/schema/index.ts'
import { recordBuildEvidence } from '../runtime/build/evidence.ts'
import { createId } from '../runtime/ids.ts'
import { browserMissing, launchBrowser, VIEWPORTS, type Browser } from './support/browser.ts'
import { startTestStack, type TestStack } from './support/stack.ts'

describe('build-maintenance evidence on the task page', { skip: browserMissing }, () => {
  let stack: TestStack
  let browser: Browser
  let url: string
  before(async () => {
    stack = await startTestStack()
    url = await stack.listen()
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await stack?.stop()
  })

  // Inserted as already ended, so the host's runner never claims it.
  async function endedTask(source: 'build-maintenance' | 'user') {
    const db = stack.host.resources.databases.application.db
    const [task] = await db
      .insert(tasks)
      .values({
        id: createId('task'),
        source,
        workspaceId: 'wsp_default',
        title: `${source} work`,
        prompt: 'maintain',
        state: 'completed',
        result: 'done',
      })
      .returning()
    return task!.id
  }

  test('each fact is listed with its reference, operation and attempt; a returned URL links', async () => {
    const db = stack.host.resources.databases.application.db
    const id = await endedTask('build-maintenance')
    const head = 'a'.repeat(40)
    const rows = [
      { kind: 'checkout', reference: head, operation: null, detail: { branch: 'refs/heads/main' } },
      { kind: 'delegation', reference: 'build-maintainer', operation: null, detail: null },
      {
        kind: 'ci-run',
        reference: 'run-2',
        operation: 'runs_queue',
        detail: { commit: head, url: 'https://build.example/runs/run-2' },
      },
      { kind: 'branch', reference: 'main', operation: 'runs_queue', detail: null },
      {
        kind: 'comment',
        reference: 'comment-9',
        operation: 'comments_create',
        detail: { url: 'javascript:alert(1)' },
      },
    ] as const
    for (const row of rows) await recordBuildEvidence(db, { ...row, taskId: id, attempt: 1 })
    const page = await browser.page()
    await page.goto(`${url}/#/tasks/${id}`)
    const list = page.getByRole('list', { name: 'Build evidence' })
    await list.waitFor()
    const items = list.locator('> li')
    assert.equal(await items.count(), 5)
    assert.deepEqual(await items.locator('strong').allInnerTexts(), [
      'checkout',
      'delegated to',
      'CI run',
      'branch',
      'comment',
    ])
    const text = await list.innerText()
    assert.match(text, new RegExp(`${head}`))
    assert.match(text, /run-2\s*runs_queue · attempt 1/)
    const links = list.getByRole('link')
    assert.equal(await links.count(), 1, 'only the http(s) URL is a link')
    assert.equal(await links.first().getAttribute('href'), 'https://build.example/runs/run-2')
    await page.setViewportSize(VIEWPORTS.phone)
    const width = await page.evaluate(() => document.documentElement.scrollWidth)
    assert.ok(width <= VIEWPORTS.phone.width, `${width}px wide at phone width`)
    await page.close()
  })

  test('a task of another source shows no Build evidence section', async () => {
    const id = await endedTask('user')
    const page = await browser.page()
    await page.goto(`${url}/#/tasks/${id}`)
    await page.getByRole('heading', { name: 'user work' }).waitFor()
    assert.equal(await page.getByRole('list', { name: 'Build evidence' }).count(), 0)
    await page.close()
  })
})
