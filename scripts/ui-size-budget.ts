/**
 * The web UI's size budget, checked by every `vite build` (`npm run build:ui` and `prepare` both
 * run it through vite.config.ts), so new pages cannot quietly bloat the first load.
 *
 *   entry      the entry chunk: what every visit downloads before anything renders
 *   app        every page, shared chunk, stylesheet and index.html: the whole app
 *   on demand  the syntax-highlighting grammars, fetched only when a reply shows a fenced code
 *              block; they belong to no page, so they have their own limit instead of eating the
 *              app's (they are about a quarter of everything shipped)
 *
 * Sizes are gzip, as served; each file is compressed on its own, as a browser fetches it.
 */
import { gzipSync } from 'node:zlib'
import type { Plugin } from 'vite'

export type SizeFigures = { entryKb: number; appKb: number; onDemandKb: number }
export type SizeLimits = SizeFigures

// The whole app was held to 80 kB while it had seven pages (77.6 kB, December 2026); the
// documentation, memories, hooks, secrets and observability pages add about 3 to 4 kB each, all
// loaded lazily, so it was 100 kB (99.9 kB used). The third round adds the channels, MCP servers,
// browser and autonomy pages and a chat turn shown as steps with recovery (about 4 to 6 kB each,
// all lazy), so the whole app may grow to 125 kB. The first load is what the entry limit guards,
// and it stays at 25 kB.
export const UI_SIZE_LIMITS: SizeLimits = { entryKb: 25, appKb: 125, onDemandKb: 30 }

/** Chunk names (vite names a dynamic import's chunk after its module) loaded on demand. */
const ON_DEMAND_CHUNKS = new Set(['languages'])

/** The figures over their limit, one sentence each; empty when the build fits. */
export function checkSizeBudget(figures: SizeFigures, limits: SizeLimits = UI_SIZE_LIMITS) {
  const labels: Record<keyof SizeFigures, string> = {
    entryKb: 'entry chunk',
    appKb: 'whole app',
    onDemandKb: 'on-demand chunks',
  }
  return (Object.keys(labels) as (keyof SizeFigures)[])
    .filter((key) => figures[key] > limits[key])
    .map((key) => `${labels[key]} is ${kb(figures[key])} gzip, over its ${kb(limits[key])} budget`)
}

/** One line for the build log. */
export function describeSizes(figures: SizeFigures, limits: SizeLimits = UI_SIZE_LIMITS) {
  return (
    `UI size budget (gzip): entry ${kb(figures.entryKb)} / ${kb(limits.entryKb)}, ` +
    `app ${kb(figures.appKb)} / ${kb(limits.appKb)}, ` +
    `on demand ${kb(figures.onDemandKb)} / ${kb(limits.onDemandKb)}`
  )
}

const kb = (value: number) => `${value.toFixed(2)} kB`

type OutputFile =
  | { type: 'chunk'; name: string; isEntry: boolean; code: string; fileName: string }
  | { type: 'asset'; source: string | Uint8Array; fileName: string }

/** Measures a bundle as vite hands it to `writeBundle`. */
export function measureBundle(files: Iterable<OutputFile>): SizeFigures {
  const figures: SizeFigures = { entryKb: 0, appKb: 0, onDemandKb: 0 }
  for (const file of files) {
    if (!/\.(js|css|html)$/.test(file.fileName)) continue
    const size = gzipSync(file.type === 'chunk' ? file.code : file.source).byteLength / 1000
    if (file.type === 'chunk' && ON_DEMAND_CHUNKS.has(file.name)) {
      figures.onDemandKb += size
      continue
    }
    figures.appKb += size
    if (file.type === 'chunk' && file.isEntry) figures.entryKb += size
  }
  return figures
}

/** The vite plugin: prints the figures and fails the build over budget. */
export function sizeBudget(limits: SizeLimits = UI_SIZE_LIMITS): Plugin {
  // Rollup's own info logs are not shown by vite; vite's logger is.
  let log = (line: string) => console.log(line)
  return {
    name: 'popagent:size-budget',
    apply: 'build',
    configResolved(config) {
      log = (line) => config.logger.info(line)
    },
    writeBundle(_options, bundle) {
      const figures = measureBundle(Object.values(bundle) as OutputFile[])
      log(describeSizes(figures, limits))
      const over = checkSizeBudget(figures, limits)
      if (over.length) this.error(`UI size budget exceeded: ${over.join('; ')}`)
    },
  }
}
