/**
 * The Autonomy page (issue 39, U2) in a real browser against a real popagent: the evolution
 * switches, a signal with its evidence and trace link, a worker pass from the page whose
 * revision shows its diff, a revert from the page, and an agent's own switch read back through
 * the API; then, under review, a held proposal's diff on the page and its approval. Reflection is answered by the scripted gateway.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { REFLECTOR_MARKER } from '../compute-host/evolution/reflection.ts'
import { OVERLAY_CATALOG } from '../runtime/evolution/catalog.ts'
import { recordSignal } from '../runtime/evolution/signals.ts'
import { browserMissing, launchBrowser, screenshotBoth, type Browser } from './support/browser.ts'
import { messagesOf } from './support/chat.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient } from './support/typed-client.ts'

describe('the Autonomy page', { skip: browserMissing }, () => {
  let stack: TestStack
  let browser: Browser
  let page: Page
  let url: string
  const api = () => typedClient(stack.edge()).api
  const overlay = OVERLAY_CATALOG.find((o) => o.id === 'vary-or-stop')!

  before(async () => {
    stack = await startTestStack({ models: [{ id: 'remote/a' }] })
    await okJson(await api().settings.autonomy.$patch({ json: { evolutionEnabled: true } }), 200)
    stack.gateway.respondWith((r) => {
      const sent = JSON.stringify(messagesOf(r))
      if (!sent.includes(REFLECTOR_MARKER)) return { text: 'done' }
      const cited = [...sent.matchAll(/Signal (evs_[0-9A-Z]+)/g)].map((m) => m[1])
      return {
        text: JSON.stringify({
          strategy: 'overlay-apply',
          catalogId: overlay.id,
          factKey: null,
          fact: null,
          evidenceSignalIds: cited,
          confidence: 0.9,
          rationale: 'the agent repeats calls',
        }),
      }
    })
    const db = stack.host.resources.databases.application.db
    for (let i = 0; i < 2; i++) {
      await recordSignal(
        db,
        {
          agentId: 'orchistrator',
          kind: 'loop-stop',
          failureClass: 'repeated-call',
          traceId: randomBytes(16).toString('hex'),
          goal: 'List the open issues',
          result: { failure: 'repo-brief: the same call three times' },
          subject: 'repo-brief',
        },
        (t) => t,
      )
    }
    url = await stack.listen()
    browser = await launchBrowser()
    page = await browser.page()
    page.setDefaultTimeout(20_000)
  })
  after(async () => {
    await browser?.close()
    await stack?.stop()
  })

  const revisionsCount = async () =>
    (await okJson(await api().autonomy.revisions.$get(), 200)).revisions.length

  test('signals, a dry run, a pass from the page, the revision’s diff, revert, and an agent’s own switch', async () => {
    await page.goto(`${url}/#/autonomy`)
    const signals = page.getByRole('table', { name: 'Signals' })
    await signals.getByText('Goal: List the open issues').waitFor()
    assert.equal(await signals.getByRole('link', { name: /trace/ }).count(), 2)
    assert.equal(await page.getByLabel('Agent evolution').isChecked(), true)
    // Self-update, read only: no schedule (self-update is off) and no run yet.
    await page.getByRole('heading', { name: 'Self-update' }).waitFor()
    await page.getByText('No workspace has a self-update schedule').waitFor()
    await page.getByText('No self-update has run yet.').waitFor()

    await page.getByRole('button', { name: 'Dry run' }).click()
    const preview = page.getByRole('region', { name: 'Dry run' })
    await preview.getByText('orchistrator: change (overlay-apply)').waitFor()
    await preview.getByText(overlay.text).waitFor()
    assert.equal(await revisionsCount(), 0, 'the dry run changed nothing')

    await page.getByRole('button', { name: 'Run the worker now' }).click()
    await page.getByRole('status').filter({ hasText: '1 change(s)' }).waitFor()
    const revisions = page.getByRole('table', { name: 'Revisions' })
    const diff = revisions.locator('td.diff').first()
    await diff.locator('ins', { hasText: overlay.text }).waitFor()
    assert.equal(await diff.locator('del').innerText(), '(nothing)')
    // How the change measured: no run after it yet.
    await revisions
      .getByLabel(/^Outcome of evr_/)
      .getByText(/0 of 0 after \(measured at 10\)/)
      .waitFor()
    await signals.getByText('processed').waitFor()
    await screenshotBoth(page, 'autonomy')

    await revisions.getByRole('button', { name: /^Revert evr_/ }).click()
    await revisions.getByRole('button', { name: 'Revert', exact: true }).click()
    await revisions.getByText(/reverted by evr_/).waitFor()
    const listed = await okJson(await api().autonomy.revisions.$get(), 200)
    assert.deepEqual(
      listed.revisions.map((r) => r.op),
      ['revert', 'create'],
    )

    const own = page.getByLabel('Orchestrator', { exact: true })
    await own.uncheck()
    await page.waitForResponse((r) => r.url().includes('/api/autonomy/policies'))
    const policies = await okJson(await api().autonomy.policies.$get(), 200)
    assert.equal(policies.agents.find((a) => a.agentId === 'orchistrator')?.enabled, false)
  })

  test('review: the owner holds changes for review, sees the proposal’s diff, and approves it', async () => {
    const db = stack.host.resources.databases.application.db
    await okJson(
      await api().autonomy.policies[':agentId'].$patch({
        param: { agentId: 'orchistrator' },
        json: { enabled: true },
      }),
      200,
    )
    await page.reload()
    const hold = page.getByLabel('Hold learned changes for review')
    await hold.check()
    await page.waitForResponse((r) => r.url().endsWith('/api/autonomy/policies'))
    for (let i = 0; i < 2; i++) {
      await recordSignal(
        db,
        {
          agentId: 'orchistrator',
          kind: 'loop-stop',
          failureClass: 'repeated-call',
          traceId: randomBytes(16).toString('hex'),
          goal: 'Summarise the changelog',
          result: { failure: 'repo-brief: the same call three times' },
          subject: 'changelog',
        },
        (t) => t,
      )
    }
    const before = await revisionsCount()
    await page.getByRole('button', { name: 'Run the worker now' }).click()
    await page.getByRole('status').filter({ hasText: '1 held for review' }).waitFor()
    assert.equal(await revisionsCount(), before, 'held: nothing changed')
    const queue = page.getByRole('table', { name: 'Proposals' })
    const diff = queue.locator('td.diff').first()
    await diff.locator('ins', { hasText: overlay.text }).waitFor()
    assert.equal(await diff.locator('del').innerText(), '(nothing)')
    await queue.getByText('Goal: Summarise the changelog').waitFor()
    await screenshotBoth(page, 'autonomy-review')

    await queue.getByRole('button', { name: /^Approve evp_/ }).click()
    await page.getByText('Nothing is waiting for review.').waitFor()
    const listed = await okJson(await api().autonomy.revisions.$get(), 200)
    assert.equal(listed.revisions.length, before + 1)
    assert.equal(listed.revisions[0]!.op, 'create')
    assert.match(listed.revisions[0]!.rationale, /approved by the owner/)
    await page
      .getByRole('table', { name: 'Revisions' })
      .getByRole('button', { name: `Revert ${listed.revisions[0]!.id}` })
      .waitFor()
  })
})
