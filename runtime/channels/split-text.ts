/**
 * The one way a long answer is cut for a channel (Telegram's 4,096 characters, Slack's, a
 * webhook receiver's): every piece is at most `limit` UTF-16 code units (what the services
 * count), the pieces read in order give back the text, and Markdown survives the cut.
 *
 * - A cut prefers a paragraph break, then a line break, then a space, and only then a hard cut
 *   (never between the halves of a surrogate pair). A space is chosen only where the line's
 *   inline code and emphasis markers are balanced, so `code` and **bold** are not torn apart.
 * - A fenced code block (``` or ~~~) cut in two is closed at the end of the first piece and
 *   opened again, with its info string, at the start of the next: each piece renders as code.
 *
 * Pure and edge-safe: the outbox stores its result, and the unit test pins its behaviour.
 */
export function splitForChannel(text: string, limit: number): string[] {
  if (!Number.isInteger(limit) || limit < MIN_LIMIT) {
    throw new RangeError(`a channel limit must be an integer of at least ${MIN_LIMIT}`)
  }
  const pieces: string[] = []
  let rest = text
  // The fence a piece must open with because the previous piece was cut inside it.
  let reopen: Fence | undefined
  while (rest.length > 0) {
    const head = reopen ? `${reopen.line}\n` : ''
    if (head.length + rest.length <= limit) {
      pieces.push(head + rest)
      break
    }
    // Room for the head, and for a closing fence should the piece end inside one.
    const room = limit - head.length - (MAX_MARKER + 1)
    const cut = breakPoint(rest, room)
    const piece = rest.slice(0, cut.at)
    const open = fenceAtEnd(reopen, piece)
    pieces.push(head + piece + (open ? `\n${open.marker}` : ''))
    reopen = open
    rest = rest.slice(cut.at + cut.skip)
  }
  return pieces
}

const MIN_LIMIT = 200
/** The longest fence marker kept when closing or reopening (a longer one is shortened). */
const MAX_MARKER = 10
/** The longest opening line carried over (a long info string is cut to its first word). */
const MAX_REOPEN = 60

type Fence = { marker: string; line: string }

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/

/** Where to cut `text` so the first part fits `room`: the index, and the separator dropped. */
function breakPoint(text: string, room: number): { at: number; skip: number } {
  const window = text.slice(0, room + 1)
  const paragraph = window.lastIndexOf('\n\n')
  if (paragraph >= room * 0.7) return { at: paragraph, skip: 2 }
  const line = window.lastIndexOf('\n')
  if (line >= room / 2) return { at: line, skip: 1 }
  for (let i = Math.min(room, window.length - 1); i >= room / 4; i--) {
    if (window[i] === ' ' && balancedBefore(window, i)) return { at: i, skip: 1 }
  }
  let at = room
  // Never between a high and a low surrogate.
  const code = text.charCodeAt(at - 1)
  if (code >= 0xd800 && code <= 0xdbff) at -= 1
  return { at, skip: 0 }
}

/** Whether the line up to `index` has its inline code and emphasis markers closed. */
function balancedBefore(text: string, index: number): boolean {
  const line = text.slice(text.lastIndexOf('\n', index - 1) + 1, index)
  const ticks = (line.match(/`/g) ?? []).length
  const stars = (line.match(/\*\*/g) ?? []).length
  const unders = (line.match(/__/g) ?? []).length
  return ticks % 2 === 0 && stars % 2 === 0 && unders % 2 === 0
}

/** The fence still open after `piece`, read from its lines, starting inside `open` if given. */
function fenceAtEnd(open: Fence | undefined, piece: string): Fence | undefined {
  let current = open
  for (const line of piece.split('\n')) {
    const match = FENCE.exec(line)
    if (!match) continue
    const marker = match[1]!
    const info = match[2]!.trim()
    if (!current) {
      // A ``` line whose info string holds a backtick is not a fence (CommonMark).
      if (marker[0] === '`' && info.includes('`')) continue
      const kept = marker.slice(0, MAX_MARKER)
      const opening = `${kept}${info}`
      current = {
        marker: kept,
        line:
          opening.length <= MAX_REOPEN ? opening : `${kept}${info.split(/\s/)[0]!.slice(0, 20)}`,
      }
    } else if (
      info === '' &&
      marker[0] === current.marker[0] &&
      marker.length >= current.marker.length
    ) {
      current = undefined
    }
  }
  return current
}
