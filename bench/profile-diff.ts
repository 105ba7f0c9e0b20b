/**
 * Compares two V8 CPU profiles of the same work on two servers (the chat-turn bench's
 * `BENCH_CPU_PROF=<dir>` writes `host.cpuprofile` and `mastra-team.cpuprofile` over the same
 * measured turns), so the difference between two sides can be read by where it is spent:
 *
 *   node bench/profile-diff.ts <dir>/host.cpuprofile <dir>/mastra-team.cpuprofile
 *     [--by package|function] [--top N] [--turns N] [--attribute <text>]
 *
 * `--by package` (the default) sums self time by where the code lives: an npm package, a Node
 * module (`node:internal/…`), a native function, the garbage collector, or a folder of this
 * project; `--by function` by function. Rows are sorted by the first profile's excess. With
 * `--turns N` every figure is also given per turn. `--attribute <text>` takes the self time of
 * the frames whose function or script contains `<text>` (a package, say `drizzle-orm/`) and
 * gives it to the nearest caller in this project: who made that library spend it. Idle time is
 * left out everywhere. Self time of a frame called from a microtask has no caller of ours above
 * it; it shows as `(no caller of ours)`.
 */
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

/** The parts of a `.cpuprofile` (the inspector's `Profiler.Profile`) read here. */
export type CpuProfile = {
  nodes: {
    id: number
    callFrame: { functionName: string; url: string; lineNumber: number }
    children?: number[]
  }[]
  samples: number[]
  timeDeltas: number[]
}
type ProfileNode = CpuProfile['nodes'][number]

const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url))

/** Where a frame's code lives, as a row of the package table. */
export function placeOf(frame: ProfileNode['callFrame'], projectRoot = PROJECT_ROOT): string {
  const { functionName, url } = frame
  if (functionName === '(garbage collector)' || functionName === '(program)') return functionName
  if (url === '') return `native ${functionName}`
  if (url.startsWith('node:')) return url
  const modules = url.lastIndexOf('node_modules/')
  if (modules >= 0) {
    const [scope, name] = url.slice(modules + 'node_modules/'.length).split('/')
    return scope!.startsWith('@') ? `${scope}/${name}` : scope!
  }
  const path = projectPath(url, projectRoot)
  return path.split('/').slice(0, 2).join('/')
}

/** A frame as a row of the function table: its name, script and line. */
export function functionOf(frame: ProfileNode['callFrame'], projectRoot = PROJECT_ROOT): string {
  const { functionName, url, lineNumber } = frame
  const modules = url.lastIndexOf('node_modules/')
  const where =
    modules >= 0 ? url.slice(modules + 'node_modules/'.length) : projectPath(url, projectRoot)
  return `${functionName || '(anonymous)'} ${where}${where ? `:${lineNumber + 1}` : ''}`
}

function projectPath(url: string, projectRoot: string): string {
  const path = url.startsWith('file://') ? fileURLToPath(url) : url
  return path.startsWith(projectRoot) ? path.slice(projectRoot.length) : path
}

const isProjectCode = (frame: ProfileNode['callFrame'], projectRoot: string) =>
  frame.url.startsWith('file://') &&
  !frame.url.includes('/node_modules/') &&
  fileURLToPath(frame.url).startsWith(projectRoot)

/** Self time per frame, in ms, idle left out. */
function selfTimes(profile: CpuProfile): Map<ProfileNode, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const times = new Map<ProfileNode, number>()
  profile.samples.forEach((id, i) => {
    const node = byId.get(id)
    if (!node || node.callFrame.functionName === '(idle)') return
    times.set(node, (times.get(node) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000)
  })
  return times
}

/** Self time (ms) summed by `key` of each frame. */
export function selfTimeBy(
  profile: CpuProfile,
  key: (frame: ProfileNode['callFrame']) => string,
): Map<string, number> {
  const sums = new Map<string, number>()
  for (const [node, ms] of selfTimes(profile)) {
    const k = key(node.callFrame)
    sums.set(k, (sums.get(k) ?? 0) + ms)
  }
  return sums
}

/**
 * The self time (ms) of frames matching `text` (in the function's name or script), each given to
 * its nearest caller in this project, by that caller's function.
 */
export function attributedTo(
  profile: CpuProfile,
  text: string,
  projectRoot = PROJECT_ROOT,
): Map<string, number> {
  const parentOf = new Map<number, ProfileNode>()
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parentOf.set(child, node)
  }
  const sums = new Map<string, number>()
  for (const [node, ms] of selfTimes(profile)) {
    const { functionName, url } = node.callFrame
    if (!functionName.includes(text) && !url.includes(text)) continue
    let caller: ProfileNode | undefined = node
    while (caller && !isProjectCode(caller.callFrame, projectRoot)) caller = parentOf.get(caller.id)
    const k = caller ? functionOf(caller.callFrame, projectRoot) : '(no caller of ours)'
    sums.set(k, (sums.get(k) ?? 0) + ms)
  }
  return sums
}

/** Rows of one or two sums, sorted by the first's excess over the second, then by size. */
export function diffRows(
  first: Map<string, number>,
  second: Map<string, number> = new Map(),
): { key: string; first: number; second: number; excess: number }[] {
  const keys = new Set([...first.keys(), ...second.keys()])
  return [...keys]
    .map((key) => {
      const a = first.get(key) ?? 0
      const b = second.get(key) ?? 0
      return { key, first: a, second: b, excess: a - b }
    })
    .sort((x, y) => y.excess - x.excess || y.first - x.first)
}

const COLUMN = 18

const total = (sums: Map<string, number>) => [...sums.values()].reduce((a, b) => a + b, 0)

function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      by: { type: 'string', default: 'package' },
      top: { type: 'string', default: '40' },
      turns: { type: 'string' },
      attribute: { type: 'string' },
    },
  })
  if (
    positionals.length < 1 ||
    positionals.length > 2 ||
    !['package', 'function'].includes(values.by)
  ) {
    throw new Error(
      'usage: node bench/profile-diff.ts <a.cpuprofile> [<b.cpuprofile>] [--by package|function] [--top N] [--turns N] [--attribute <text>]',
    )
  }
  const profiles = positionals.map((file) => JSON.parse(readFileSync(file, 'utf8')) as CpuProfile)
  const key = values.by === 'function' ? functionOf : placeOf
  const sums = profiles.map((profile) =>
    values.attribute ? attributedTo(profile, values.attribute) : selfTimeBy(profile, (f) => key(f)),
  )
  const turns = values.turns ? Number(values.turns) : undefined
  const ms = (n: number) =>
    (turns ? `${n.toFixed(0)} (${(n / turns).toFixed(2)})` : n.toFixed(0)).padStart(COLUMN)
  const name = (file: string) => basename(file, '.cpuprofile').slice(0, COLUMN - 2)
  const header = positionals.map((file) => name(file).padStart(COLUMN)).join('')
  console.log(`self time, ms${turns ? ` (per turn of ${turns})` : ''}`)
  console.log(`${'where'.padEnd(70)}${header}${sums.length > 1 ? 'excess'.padStart(COLUMN) : ''}`)
  console.log(`${'all'.padEnd(70)}${sums.map((s) => ms(total(s))).join('')}`)
  for (const row of diffRows(sums[0]!, sums[1]).slice(0, Number(values.top))) {
    const cells = [ms(row.first), ...(sums.length > 1 ? [ms(row.second), ms(row.excess)] : [])]
    console.log(`${row.key.slice(0, 69).padEnd(70)}${cells.join('')}`)
  }
}

if (import.meta.main) main()
