/**
 * A reply's Markdown kept in step with its text as it streams, without long main-thread tasks.
 *
 * Updates only record the newest text; the work happens in animation frames, at most
 * `FRAME_BUDGET_MS` of it per frame, however many chunks arrived meanwhile. Each step lexes from
 * the end of the settled blocks (blocks.ts) and renders only what is new: settled blocks once,
 * the open last block again while it grows. A long saved reply opened at once is rendered the
 * same way, a slice per step, so no single frame lexes or builds all of it.
 */
import type { Links } from 'marked'
import { addDefinitions, lex, sliceFrom, WINDOW } from './blocks.ts'
import { renderBlock } from './render-tokens.ts'

const FRAME_BUDGET_MS = 6

type Block = { start: number; raw: string; final: boolean; node: Node | null }

// Open and settled renders differ only in code blocks (highlighted once settled).
const mayHoldCode = (raw: string) => /```|~~~|(^|\n)( {4}|\t)/.test(raw)

export type MarkdownView = {
  /** The text to show; `complete` once no more will be appended (code blocks then highlight). */
  update(text: string, complete: boolean): void
  dispose(): void
}

export function createMarkdownView(root: HTMLElement): MarkdownView {
  let source = ''
  let complete = false
  /** Whether `source`/`complete` changed since the blocks last reached the end of the text. */
  let dirty = false
  let blocks: Block[] = []
  /** blocks[0, settled) will not change; they cover the source up to `settledEnd`. */
  let settled = 0
  let settledEnd = 0
  let window = WINDOW
  const links: Links = Object.create(null)
  /** Settled blocks to render again because a link definition they may refer to arrived. */
  let relink: number[] = []
  let frame = 0
  let disposed = false

  function reset() {
    root.replaceChildren()
    blocks = []
    settled = 0
    settledEnd = 0
    relink = []
    for (const tag of Object.keys(links)) delete links[tag]
  }

  function schedule() {
    if (!frame && !disposed) frame = requestAnimationFrame(run)
  }

  function run() {
    frame = 0
    const deadline = performance.now() + FRAME_BUDGET_MS
    while (performance.now() < deadline) {
      if (!step()) return
    }
    schedule()
  }

  /** One bounded piece of work; false when there is nothing left to do. */
  function step(): boolean {
    if (relink.length > 0) {
      relinkOne(relink.shift()!)
      return true
    }
    if (!dirty) return false
    try {
      advance()
    } catch (error) {
      // A lexer failure must not lose the reply: the rest shows as plain text.
      console.error('markdown rendering failed', error)
      showRestAsText()
    }
    return dirty || relink.length > 0
  }

  function advance() {
    const slice = sliceFrom(source, settledEnd, { complete, links, window })
    const previous = blocks.splice(settled)
    const used = new Set<Block>()
    const fragment = document.createDocumentFragment()
    const place = (token: (typeof slice.settled)[number], start: number, final: boolean) => {
      const old = previous.find(
        (b) =>
          !used.has(b) &&
          b.start === start &&
          b.raw === token.raw &&
          (b.final === final || !mayHoldCode(b.raw)),
      )
      if (old) {
        used.add(old)
        old.final = final
      }
      const block = old ?? { start, raw: token.raw, final, node: renderBlock(token, final) }
      if (block.node) fragment.append(block.node)
      blocks.push(block)
    }

    let at = settledEnd
    for (const token of slice.settled) {
      place(token, at, true)
      at += token.raw.length
    }
    settled = blocks.length
    settledEnd = slice.settledEnd
    if (addDefinitions(slice.settled, links)) {
      // Earlier blocks may hold a reference to the new definition: render those again.
      for (let i = 0; i < settled - slice.settled.length; i++) {
        if (blocks[i]!.raw.includes('[')) relink.push(i)
      }
    }
    for (const token of slice.open) {
      place(token, at, false)
      at += token.raw.length
    }

    // Open blocks of the last frame that are past this slice still show until a step reaches
    // them; the others are replaced.
    const kept = slice.atEnd ? [] : previous.filter((b) => !used.has(b) && b.start >= at)
    for (const b of previous) {
      if (!used.has(b) && !kept.includes(b) && b.node) b.node.parentNode?.removeChild(b.node)
    }
    root.insertBefore(fragment, kept.find((b) => b.node)?.node ?? null)
    blocks.push(...kept)

    if (slice.atEnd) {
      dirty = false
      window = WINDOW
    } else if (slice.settled.length === 0) {
      // One block longer than the window (a long code block): look further next time.
      window *= 2
    } else {
      window = WINDOW
    }
  }

  function relinkOne(index: number) {
    const block = blocks[index]
    if (!block || index >= settled) return
    const token = lex(block.raw, links).find((t) => t.type !== 'space')
    const node = token ? renderBlock(token, true) : null
    if (block.node && node) block.node.parentNode?.replaceChild(node, block.node)
    block.node = node ?? block.node
  }

  function showRestAsText() {
    for (const b of blocks.splice(settled)) b.node?.parentNode?.removeChild(b.node)
    const rest = document.createElement('p')
    rest.className = 'md-raw'
    rest.textContent = source.slice(settledEnd)
    root.append(rest)
    blocks.push({ start: settledEnd, raw: source.slice(settledEnd), final: false, node: rest })
    dirty = false
  }

  return {
    update(text, done) {
      const next = text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text
      if (next === source && done === complete) return
      // Text withdrawn or rewritten before the settled end (a retried step): start over.
      if (!next.startsWith(source.slice(0, settledEnd))) reset()
      source = next
      complete = done
      dirty = true
      schedule()
    },
    dispose() {
      disposed = true
      if (frame) cancelAnimationFrame(frame)
      frame = 0
    },
  }
}
