import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  checkSizeBudget,
  describeSizes,
  measureBundle,
  UI_SIZE_LIMITS,
} from '../scripts/ui-size-budget.ts'

test('a build under every limit passes the size budget', () => {
  assert.deepEqual(checkSizeBudget({ entryKb: 22.8, appKb: 76.6, onDemandKb: 24.5 }), [])
  // At the limit is still within it.
  assert.deepEqual(checkSizeBudget({ ...UI_SIZE_LIMITS }), [])
})

test('an entry chunk over 25 kB gzip fails the budget', () => {
  const over = checkSizeBudget({ entryKb: 25.01, appKb: 60, onDemandKb: 0 })
  assert.equal(over.length, 1)
  assert.match(over[0]!, /entry chunk is 25\.01 kB gzip, over its 25\.00 kB budget/)
})

test('a whole app over 125 kB gzip fails the budget, and each figure over is named', () => {
  const over = checkSizeBudget({ entryKb: 26, appKb: 125.5, onDemandKb: 31 })
  assert.equal(over.length, 3)
  assert.match(over[1]!, /whole app is 125\.50 kB/)
  assert.match(over[2]!, /on-demand chunks is 31\.00 kB/)
})

test('the figures are printed against their limits', () => {
  assert.equal(
    describeSizes({ entryKb: 1, appKb: 2, onDemandKb: 3 }, { entryKb: 4, appKb: 5, onDemandKb: 6 }),
    'UI size budget (gzip): entry 1.00 kB / 4.00 kB, app 2.00 kB / 5.00 kB, on demand 3.00 kB / 6.00 kB',
  )
})

test('the bundle is measured per file: entry, app and on-demand grammars apart', () => {
  const big = 'x'.repeat(50_000) + Array.from({ length: 2000 }, (_, i) => i * 7919).join(',')
  const figures = measureBundle([
    { type: 'chunk', name: 'index', isEntry: true, code: big, fileName: 'assets/index-a.js' },
    { type: 'chunk', name: 'chat', isEntry: false, code: big, fileName: 'assets/chat-b.js' },
    { type: 'chunk', name: 'languages', isEntry: false, code: big, fileName: 'assets/l-c.js' },
    { type: 'asset', source: 'body{}', fileName: 'assets/index-d.css' },
    { type: 'asset', source: new Uint8Array(10), fileName: 'favicon.png' },
  ])
  assert.ok(figures.entryKb > 0)
  assert.equal(figures.onDemandKb, figures.entryKb)
  // The app counts the entry, the page chunk and the stylesheet, not the grammars or the image.
  assert.ok(figures.appKb > 2 * figures.entryKb && figures.appKb < 2.1 * figures.entryKb)
})
