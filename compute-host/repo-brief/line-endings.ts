import type { LineEndings } from './git-attributes.ts'

/**
 * The content git would store for a work-tree file under `lineEndings` (convert.c's
 * crlf_to_git): CRLF pairs become LF. `auto` converts only what git's heuristic calls text: no
 * NUL, no lone CR, and at most one non-printable byte per 128 printable ones. (git also leaves a
 * file alone whose indexed blob holds a CR; such a blob never equals a converted file, which has
 * no CRLF and, being text, no lone CR, so the comparison comes out the same without reading it.)
 */
export function toBlobContent(content: Buffer, lineEndings: LineEndings): Buffer {
  if (lineEndings === 'as-is' || content.length === 0) return content
  let crlf = 0
  let loneCr = 0
  let nul = 0
  let printable = 0
  let nonPrintable = 0
  for (let i = 0; i < content.length; i++) {
    const c = content[i]!
    if (c === 0x0d) {
      if (content[i + 1] === 0x0a) {
        crlf++
        i++
      } else loneCr++
    } else if (c === 0x0a) {
      // Line feeds count as neither.
    } else if (c === 0x7f) nonPrintable++
    else if (c < 0x20) {
      if (c === 0x08 || c === 0x09 || c === 0x1b || c === 0x0c) printable++
      else {
        nonPrintable++
        if (c === 0) nul++
      }
    } else printable++
  }
  // A trailing ^Z (DOS end of file) is not held against the file.
  if (content[content.length - 1] === 0x1a) nonPrintable--
  if (lineEndings === 'auto' && (loneCr > 0 || nul > 0 || printable >> 7 < nonPrintable)) {
    return content
  }
  if (crlf === 0) return content
  const out = Buffer.allocUnsafe(content.length - crlf)
  let o = 0
  for (let i = 0; i < content.length; i++) {
    const c = content[i]!
    if (c === 0x0d && content[i + 1] === 0x0a) continue
    out[o++] = c
  }
  return out
}
