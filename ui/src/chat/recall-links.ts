/**
 * The recall activity's text cut into plain text and the sessions it names (`session ses_…`), so
 * each source session can be opened from the reply that used it. No JSX: Node imports this file
 * in test/ui-recall-links.test.ts.
 */
export type RecallSegment = { text: string } | { sessionId: string }

const SESSION = /session (ses_[0-9A-Za-z-]{1,64})/g

export function recallSegments(text: string): RecallSegment[] {
  const out: RecallSegment[] = []
  let at = 0
  for (const match of text.matchAll(SESSION)) {
    const start = match.index + 'session '.length
    if (start > at) out.push({ text: text.slice(at, start) })
    out.push({ sessionId: match[1]! })
    at = start + match[1]!.length
  }
  if (at < text.length) out.push({ text: text.slice(at) })
  return out
}
