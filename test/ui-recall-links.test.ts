import assert from 'node:assert/strict'
import { test } from 'node:test'
import { recallSegments } from '../ui/src/chat/recall-links.ts'

test('the recall activity names its source sessions as links, the rest stays text', () => {
  const text =
    'hybrid; 2 item(s)\n' +
    '- [item:rci_1 · earlier session · session ses_01ABC "Deploys" · turn trn_9 · 2026-12-01] uses blue\n' +
    '- [mem:mem_2 · user memory · 2026-12-02] prefers tabs'
  const segments = recallSegments(text)
  assert.deepEqual(
    segments.filter((s) => 'sessionId' in s),
    [{ sessionId: 'ses_01ABC' }],
  )
  // Nothing is lost or reordered: the pieces put back together are the text.
  assert.equal(segments.map((s) => ('sessionId' in s ? s.sessionId : s.text)).join(''), text)
  assert.deepEqual(recallSegments('full-text; 0 item(s)'), [{ text: 'full-text; 0 item(s)' }])
})
