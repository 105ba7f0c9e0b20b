/**
 * The documentation page (W7) in Debian's Chromium: a workspace's Markdown is imported from its
 * repository and indexed while the page watches, a document is written with its preview, and the
 * search box shows the sections the agents' docs-search would get. Screenshots at both widths.
 */
import assert from 'node:assert/strict'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { browserMissing, launchBrowser, screenshotBoth, type Browser } from './support/browser.ts'
import { startTestStack, type TestStack } from './support/stack.ts'
import { okJson, typedClient } from './support/typed-client.ts'

describe('the documentation page', { skip: browserMissing }, () => {
  let stack: TestStack
  let browser: Browser
  let url: string
  let workspaceId: string
  before(async () => {
    stack = await startTestStack()
    const repo = join(stack.host.resources.workspaceRoot, 'handbook')
    await mkdir(join(repo, 'docs'), { recursive: true })
    await writeFile(join(repo, 'README.md'), '# Handbook\n\nHow the team ships.\n')
    await writeFile(
      join(repo, 'docs', 'releases.md'),
      '# Releases\n\n## Freeze\n\nNo merges on Fridays after noon.\n\n## Tagging\n\nTag with `vX.Y.Z`.\n',
    )
    const api = typedClient(stack.edge()).api
    workspaceId = (
      await okJson(
        await api.workspaces.$post({ json: { name: 'handbook', path: 'handbook' } }),
        201,
      )
    ).id
    url = await stack.listen()
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await stack?.stop()
  })

  test('import, index state, a written document with preview, and search', async () => {
    const page = await browser.page()
    page.setDefaultTimeout(20_000)
    await page.goto(`${url}/#/docs/${workspaceId}`)
    await page.getByText('No documents in this workspace yet.').waitFor()
    await page.getByRole('button', { name: 'Import README and docs/ from the repository' }).click()
    await page.getByText('Imported: 2 new, 0 updated, 0 unchanged.').waitFor()
    const table = page.getByRole('table', { name: 'Documents' })
    // The page follows the host's background indexer until both are indexed.
    await table.locator('[data-doc="releases"] .badge', { hasText: 'indexed' }).waitFor()
    await table.locator('[data-doc="readme"] .badge', { hasText: 'indexed' }).waitFor()
    await screenshotBoth(page, 'docs-imported')

    await page.getByRole('button', { name: 'New document' }).click()
    const editor = page.getByRole('form', { name: 'New document' })
    await editor.getByLabel('Title').fill('On-call')
    await editor.getByLabel('Slug').fill('guides/on-call')
    await editor
      .getByLabel('Markdown')
      .fill('# On-call\n\n## Paging\n\nPage the **secondary** after 10 minutes.\n')
    await editor.getByLabel('Show the preview').check()
    await editor.getByLabel('Preview').locator('strong', { hasText: 'secondary' }).waitFor()
    await editor.getByRole('button', { name: 'Create document' }).click()
    await page.getByRole('form', { name: 'Edit document' }).waitFor()
    await table.locator('[data-doc="guides/on-call"] .badge', { hasText: 'indexed' }).waitFor()
    await screenshotBoth(page, 'docs-editor')

    await page.getByLabel('Search the documentation').fill('when are merges frozen?')
    await page.getByRole('button', { name: 'Search', exact: true }).click()
    const first = page.getByRole('list', { name: 'Search results' }).locator('li').first()
    await first.waitFor()
    assert.match(await first.innerText(), /Releases > Freeze[\s\S]*No merges on Fridays/)
    await screenshotBoth(page, 'docs-search')
  })
})
