/**
 * Markdown tokens → DOM nodes. A reply is untrusted (a web page or file the agent read can steer
 * what the model writes), so this never builds an HTML string and never parses one: each known
 * token becomes an element made with `createElement`, and all text goes in as text nodes. Raw HTML
 * in the reply (block or inline) is shown as the text it is, so `<script>` or `<img onerror>`
 * cannot run. Links open only for http(s) and mailto, in a new tab without opener or referrer;
 * images are never loaded, only linked. Any token type not listed here shows as its source text.
 */
import type { Token, Tokens } from 'marked'
import { copyButton } from './copy.ts'
import { decodeEntities } from './entities.ts'
import { highlightInto } from './highlight.ts'
import { clickableHref, imageLinkHref } from './safe-url.ts'

const el = <K extends keyof HTMLElementTagNameMap>(tag: K, className?: string) => {
  const node = document.createElement(tag)
  if (className) node.className = className
  return node
}

const text = (value: string) => document.createTextNode(value)

/**
 * One block token as a DOM node, or null for tokens that show nothing (blank lines, link
 * definitions). `final` is false for the block still streaming in: a code block is then shown
 * plain, and highlighted once it is complete.
 */
export function renderBlock(token: Token, final: boolean): Node | null {
  switch (token.type) {
    case 'space':
    case 'def':
      return null
    case 'paragraph':
      return withInline(el('p'), (token as Tokens.Paragraph).tokens)
    case 'heading': {
      const t = token as Tokens.Heading
      const depth = Math.min(6, Math.max(1, t.depth)) as 1 | 2 | 3 | 4 | 5 | 6
      return withInline(el(`h${depth}`), t.tokens)
    }
    case 'code':
      return codeBlock(token as Tokens.Code, final)
    case 'blockquote':
      return withBlocks(el('blockquote'), (token as Tokens.Blockquote).tokens, final)
    case 'list':
      return list(token as Tokens.List, final)
    case 'table':
      return table(token as Tokens.Table)
    case 'hr':
      return el('hr')
    case 'html': {
      // Raw HTML as the text it is; pre-wrap keeps its lines.
      const shown = el('p', 'md-raw')
      shown.append(text(token.raw.replace(/\n+$/, '')))
      return shown
    }
    case 'text': {
      // A top-level text block (rare): a paragraph of its inline content.
      const t = token as Tokens.Text
      const p = el('p')
      if (t.tokens) return withInline(p, t.tokens)
      p.append(text(decodeEntities(t.text)))
      return p
    }
    default: {
      const p = el('p', 'md-raw')
      p.append(text(token.raw))
      return p
    }
  }
}

function withBlocks<T extends HTMLElement>(parent: T, tokens: Token[], final: boolean): T {
  for (const token of tokens) {
    const node = renderBlock(token, final)
    if (node) parent.append(node)
  }
  return parent
}

/** `inLink`: inside a link's text, where an image must not become a second, nested link. */
function withInline<T extends ParentNode>(
  parent: T,
  tokens: Token[] | undefined,
  inLink = false,
): T {
  for (const token of tokens ?? []) parent.append(inline(token, inLink))
  return parent
}

function inline(token: Token, inLink = false): Node {
  switch (token.type) {
    case 'text': {
      const t = token as Tokens.Text
      if (t.tokens?.length) return withInline(document.createDocumentFragment(), t.tokens, inLink)
      return text(decodeEntities(t.text))
    }
    case 'escape':
      return text((token as Tokens.Escape).text)
    case 'strong':
      return withInline(el('strong'), (token as Tokens.Strong).tokens, inLink)
    case 'em':
      return withInline(el('em'), (token as Tokens.Em).tokens, inLink)
    case 'del':
      return withInline(el('del'), (token as Tokens.Del).tokens, inLink)
    case 'codespan': {
      const code = el('code')
      code.append(text((token as Tokens.Codespan).text))
      return code
    }
    case 'br':
      return el('br')
    case 'link':
      return link(token as Tokens.Link)
    case 'image':
      return image(token as Tokens.Image, inLink)
    case 'checkbox':
      return checkbox((token as Tokens.Checkbox).checked)
    default:
      // Inline HTML (`<b>`, `<img …>`, `<script>`) and anything unknown: its source as text.
      return text(token.raw)
  }
}

function link(token: Tokens.Link): Node {
  // Autolinks are literal; a written destination may carry character references.
  const destination = token.autolink ? token.href : decodeEntities(token.href)
  const href = clickableHref(destination)
  if (!href) {
    const inert = withInline(el('span', 'md-link-inert'), token.tokens, true)
    inert.title = `Link not opened (only http, https and mailto links are): ${destination}`
    return inert
  }
  const a = withInline(el('a'), token.tokens, true)
  a.href = href
  a.target = '_blank'
  a.rel = 'noopener noreferrer'
  if (token.title) a.title = decodeEntities(token.title)
  return a
}

/** An image never loads (it would tell its server who reads the reply): a link to it, or its alt text. */
function image(token: Tokens.Image, inLink: boolean): Node {
  const alt = decodeEntities(token.text) || 'image'
  const href = inLink ? undefined : imageLinkHref(decodeEntities(token.href))
  const label = `Image: ${alt}`
  if (!href) {
    // Inside a link the link itself opens; elsewhere an unsafe address stays inert.
    const shown = el('span', inLink ? 'md-image' : 'md-image md-link-inert')
    shown.append(text(label))
    return shown
  }
  const a = el('a', 'md-image')
  a.href = href
  a.target = '_blank'
  a.rel = 'noopener noreferrer'
  a.title = 'Open the image in a new tab (images in replies are not loaded)'
  a.append(text(label))
  return a
}

function checkbox(checked: boolean): Node {
  const box = el('input')
  box.type = 'checkbox'
  box.checked = checked
  box.disabled = true
  return box
}

function list(token: Tokens.List, final: boolean): Node {
  const parent = token.ordered ? el('ol') : el('ul')
  if (parent instanceof HTMLOListElement && typeof token.start === 'number' && token.start !== 1) {
    parent.start = token.start
  }
  for (const item of token.items) {
    const li = el('li', item.task ? 'md-task' : undefined)
    for (const child of item.tokens) {
      // Tight items hold text tokens (inline content); loose ones hold paragraphs and blocks.
      if (child.type === 'text' || child.type === 'checkbox') li.append(inline(child))
      else {
        const node = renderBlock(child, final)
        if (node) li.append(node)
      }
    }
    parent.append(li)
  }
  return parent
}

function table(token: Tokens.Table): Node {
  const wrap = el('div', 'md-table')
  const t = el('table')
  const row = (cells: Tokens.TableCell[], tag: 'th' | 'td') => {
    const tr = el('tr')
    for (const cell of cells) {
      tr.append(withInline(el(tag, cell.align ? `align-${cell.align}` : undefined), cell.tokens))
    }
    return tr
  }
  const head = el('thead')
  head.append(row(token.header, 'th'))
  const body = el('tbody')
  for (const cells of token.rows) body.append(row(cells, 'td'))
  t.append(head, body)
  wrap.append(t)
  return wrap
}

function codeBlock(token: Tokens.Code, final: boolean): Node {
  const language = (token.lang ?? '').trim().split(/\s+/)[0] ?? ''
  const body = token.text
  const block = el('div', 'md-code')
  const head = el('div', 'md-code-head')
  const label = el('span', 'md-code-lang')
  label.append(text(language || 'text'))
  head.append(label, copyButton(body))
  const pre = el('pre')
  const code = el('code')
  code.append(text(body))
  pre.append(code)
  block.append(head, pre)
  if (final) highlightInto(code, body, language)
  return block
}
