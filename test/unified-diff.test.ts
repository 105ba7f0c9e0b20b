/** The undo view's unified diff: hunks with context, created and deleted files, no final newline. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { unifiedDiff } from '../compute-host/undo/unified-diff.ts'

test('a change in the middle keeps three lines of context on each side', () => {
  const before = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n'
  const after = before.replace('line 5\n', 'line five\n')
  assert.equal(
    unifiedDiff('f.txt', before, after),
    '--- a/f.txt\n+++ b/f.txt\n@@ -2,7 +2,7 @@\n line 2\n line 3\n line 4\n-line 5\n+line five\n line 6\n line 7\n line 8\n',
  )
})

test('created and deleted files, and a missing final newline', () => {
  assert.equal(unifiedDiff('n', null, 'a\n'), '--- /dev/null\n+++ b/n\n@@ -0,0 +1,1 @@\n+a\n')
  assert.equal(
    unifiedDiff('n', 'a\nb\n', null),
    '--- a/n\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n',
  )
  assert.equal(
    unifiedDiff('n', 'a\n', 'a'),
    '--- a/n\n+++ b/n\n@@ -1,1 +1,1 @@\n-a\n+a\n\\ No newline at end of file\n',
  )
})

test('two distant changes are two hunks; a huge rewrite is still bounded', () => {
  const lines = Array.from({ length: 40 }, (_, i) => `l${i}`)
  const changed = [...lines]
  changed[2] = 'X'
  changed[35] = 'Y'
  const diff = unifiedDiff('f', lines.join('\n') + '\n', changed.join('\n') + '\n')
  assert.equal(diff.match(/^@@/gm)?.length, 2)
  const big = Array.from({ length: 5_000 }, (_, i) => `a${i}`).join('\n')
  const other = Array.from({ length: 5_000 }, (_, i) => `b${i}`).join('\n')
  const started = performance.now()
  const rewrite = unifiedDiff('f', big, other)
  assert.ok(performance.now() - started < 2_000)
  assert.equal(rewrite.split('\n').filter((l) => l.startsWith('-a')).length, 5_000)
})
