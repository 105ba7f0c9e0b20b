import assert from 'node:assert/strict'
import { Session } from 'node:inspector/promises'
import { test } from 'node:test'
import { pathToFileURL } from 'node:url'
import {
  attributedTo,
  diffRows,
  functionOf,
  placeOf,
  selfTimeBy,
  type CpuProfile,
} from '../bench/profile-diff.ts'

const ROOT = '/srv/popagent/'
const ours = (path: string) => pathToFileURL(`${ROOT}${path}`).href
const frame = (functionName: string, url: string, lineNumber = 0) => ({
  functionName,
  url,
  lineNumber,
})

/**
 * root → startChatTurn (ours) → execute (drizzle) → build (drizzle); root → runMicrotasks →
 * then (drizzle); root → (garbage collector); root → (idle). Samples: 1 ms each.
 */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)', ''), children: [2, 5, 7, 8] },
    {
      id: 2,
      callFrame: frame('startChatTurn', ours('compute-host/runs/chat-turn.ts'), 34),
      children: [3],
    },
    {
      id: 3,
      callFrame: frame('execute', `${ours('node_modules/drizzle-orm/session.js')}`),
      children: [4],
    },
    { id: 4, callFrame: frame('build', ours('node_modules/drizzle-orm/sql/sql.js'), 68) },
    { id: 5, callFrame: frame('runMicrotasks', ''), children: [6] },
    { id: 6, callFrame: frame('then', ours('node_modules/drizzle-orm/query-promise.js')) },
    { id: 7, callFrame: frame('(garbage collector)', '') },
    { id: 8, callFrame: frame('(idle)', '') },
  ],
  samples: [2, 3, 4, 4, 4, 6, 7, 7, 8, 8, 8, 8],
  timeDeltas: Array(12).fill(1000),
}

test('self time is summed by package, project folder, native function and collector, idle left out', () => {
  const sums = selfTimeBy(profile, (f) => placeOf(f, ROOT))
  assert.deepEqual(Object.fromEntries(sums), {
    'compute-host/runs': 1,
    'drizzle-orm': 5,
    '(garbage collector)': 2,
  })
})

test("a library's self time goes to its nearest caller in the project, microtasks to none", () => {
  const sums = attributedTo(profile, 'drizzle-orm/', ROOT)
  assert.deepEqual(Object.fromEntries(sums), {
    'startChatTurn compute-host/runs/chat-turn.ts:35': 4,
    '(no caller of ours)': 1,
  })
})

test('rows are sorted by the first profile’s excess over the second', () => {
  const rows = diffRows(
    new Map([
      ['a', 10],
      ['b', 50],
      ['c', 5],
    ]),
    new Map([
      ['a', 2],
      ['b', 49],
      ['d', 7],
    ]),
  )
  assert.deepEqual(
    rows.map((r) => [r.key, r.excess]),
    [
      ['a', 8],
      ['c', 5],
      ['b', 1],
      ['d', -7],
    ],
  )
})

test('a real profile of this process finds a busy function of the project by name and folder', async () => {
  const session = new Session()
  session.connect()
  try {
    await session.post('Profiler.enable')
    await session.post('Profiler.setSamplingInterval', { interval: 200 })
    await session.post('Profiler.start')
    spinForProfile(200)
    const { profile: real } = await session.post('Profiler.stop')
    const byFunction = selfTimeBy(real as CpuProfile, (f) => functionOf(f))
    const spun = [...byFunction].find(([key]) =>
      key.startsWith('spinForProfile test/profile-diff.test.ts:'),
    )
    assert.ok(
      spun,
      `spinForProfile is missing from ${[...byFunction.keys()].slice(0, 20).join(', ')}`,
    )
    const byPlace = selfTimeBy(real as CpuProfile, (f) => placeOf(f))
    assert.ok(
      (byPlace.get('test/profile-diff.test.ts') ?? 0) > 40,
      'most of the spin is self time of this file',
    )
  } finally {
    session.disconnect()
  }
})

/** Keeps the CPU busy in this file's own frame for `ms`. */
function spinForProfile(ms: number) {
  const until = performance.now() + ms
  let x = 0
  while (performance.now() < until) {
    for (let i = 0; i < 1000; i++) x = (x * 31 + i) % 1_000_003
  }
  return x
}
