/**
 * Markdown-aware chunking for documentation search. A chunk is one section (the text under a
 * heading, up to the next heading of any level) with the path of headings above it, so a hit says
 * where it is and the headings are searched with the text. A section longer than `maxChars` is
 * cut at paragraph (then line, then character) boundaries with `overlap` characters repeated, so
 * a sentence on a cut is whole in one of the two pieces. Headings inside code fences are text.
 *
 * Written here rather than taken from `@mastra/rag`'s MDocument: the same splitting in sixty
 * lines, where that package would bring the AWS Bedrock SDK and a reranking client as hard
 * dependencies of every install.
 */
export type DocChunk = { ordinal: number; headingPath: string; content: string }

export function chunkMarkdown(
  body: string,
  options: { maxChars?: number; overlap?: number } = {},
): DocChunk[] {
  const maxChars = options.maxChars ?? 1_500
  const overlap = options.overlap ?? 150
  const sections: { path: string; lines: string[] }[] = []
  const headings: string[] = []
  let current = { path: '', lines: [] as string[] }
  let fenced = false
  for (const line of body.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced
    const heading = !fenced && /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line)
    if (heading) {
      sections.push(current)
      headings.length = heading[1]!.length - 1
      headings[heading[1]!.length - 1] = heading[2]!
      current = { path: headings.filter(Boolean).join(' > '), lines: [] }
      continue
    }
    current.lines.push(line)
  }
  sections.push(current)
  const chunks: DocChunk[] = []
  for (const section of sections) {
    const text = section.lines.join('\n').trim()
    if (!text && !section.path) continue
    for (const piece of split(text || section.path, maxChars, overlap)) {
      chunks.push({ ordinal: chunks.length, headingPath: section.path, content: piece })
    }
  }
  return chunks
}

/** Pieces of at most `max` characters, each starting `overlap` characters before the last cut. */
function split(text: string, max: number, overlap: number): string[] {
  if (text.length <= max) return [text]
  const pieces: string[] = []
  let start = 0
  while (start < text.length) {
    let end = Math.min(start + max, text.length)
    if (end < text.length) {
      // Prefer a paragraph break, then a line break, in the second half of the window.
      const window = text.slice(start, end)
      const cut = Math.max(window.lastIndexOf('\n\n'), window.lastIndexOf('\n'))
      if (cut > max / 2) end = start + cut
    }
    pieces.push(text.slice(start, end).trim())
    if (end >= text.length) break
    start = Math.max(end - overlap, start + 1)
  }
  return pieces.filter(Boolean)
}
