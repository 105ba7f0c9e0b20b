/**
 * A real Chromium (Debian's package) driven by playwright-core, for the UI tests. Screenshots
 * go to test-artifacts/screenshots/<name>-<desktop|phone>.png.
 */
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'

export const CHROMIUM = '/usr/bin/chromium'
export const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'screenshots')

/** Why browser tests cannot run here, or false when they can (for `describe(…, { skip })`). */
export const browserMissing: string | false = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is missing: apt-get install -y chromium`

export const VIEWPORTS = {
  desktop: { width: 1366, height: 850 },
  phone: { width: 390, height: 844 },
} as const

export type Browser = {
  context: BrowserContext
  page(viewport?: keyof typeof VIEWPORTS): Promise<Page>
  close(): Promise<void>
}

export async function launchBrowser(): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'popagent-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
  return {
    context,
    async page(viewport = 'desktop') {
      const page = await context.newPage()
      await page.setViewportSize(VIEWPORTS[viewport])
      return page
    },
    async close() {
      await context.close()
      await rm(profile, { recursive: true, force: true })
    },
  }
}

/** Saves the page as it is now, at both widths, under test-artifacts/screenshots. */
export async function screenshotBoth(page: Page, name: string): Promise<string[]> {
  await mkdir(ARTIFACTS, { recursive: true })
  const saved: string[] = []
  const original = page.viewportSize()
  for (const [label, size] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(size)
    await page.waitForTimeout(150)
    const path = join(ARTIFACTS, `${name}-${label}.png`)
    await page.screenshot({ path, fullPage: true })
    saved.push(path)
  }
  if (original) await page.setViewportSize(original)
  return saved
}
