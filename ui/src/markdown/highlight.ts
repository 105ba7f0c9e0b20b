/**
 * Highlighting a code block in place. The grammars load once, on the first code block in a known
 * language; until then (and for any other language) the block shows as plain text. Each token
 * becomes a `<span class="token …">` created as a DOM node, never parsed from a string, and
 * coloured by class in markdown.css (the page's CSP allows no inline styles).
 */
import type { ElementContent, Root } from 'hast'

type Highlighter = typeof import('./languages.ts')

let loaded: Highlighter | undefined
let loading: Promise<Highlighter> | undefined

const load = () => (loading ??= import('./languages.ts').then((module) => (loaded = module)))

/**
 * Replaces the contents of `code` with the highlighted `text` when a grammar fits `language`:
 * at once when the grammars are loaded, otherwise after they load, as long as `code` still shows
 * the same text (a streamed block may have been re-rendered meanwhile).
 */
export function highlightInto(code: HTMLElement, text: string, language: string): void {
  if (!language) return
  if (loaded) return apply(loaded, code, text, language)
  void load().then(
    (module) => {
      if (code.isConnected && code.textContent === text) apply(module, code, text, language)
    },
    // No highlighter (the chunk failed to load): the code stays plain, which is still readable.
    () => (loading = undefined),
  )
}

function apply(module: Highlighter, code: HTMLElement, text: string, language: string) {
  const tree = module.highlightTree(text, language)
  if (!tree) return
  code.replaceChildren(...toNodes(tree))
  code.classList.add('highlighted')
}

function toNodes(parent: Root | { children: ElementContent[] }): Node[] {
  const nodes: Node[] = []
  for (const child of parent.children) {
    if (child.type === 'text') nodes.push(document.createTextNode(child.value))
    else if (child.type === 'element') {
      // Only spans with token classes: whatever the tree says, no other element or attribute.
      const span = document.createElement('span')
      const names = child.properties.className
      if (Array.isArray(names)) span.className = names.map(String).join(' ')
      span.append(...toNodes(child))
      nodes.push(span)
    }
  }
  return nodes
}
