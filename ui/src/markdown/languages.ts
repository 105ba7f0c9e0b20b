/**
 * The syntax highlighter, loaded on demand (a dynamic import: its own chunk, fetched the first time
 * a reply holds a fenced code block in a known language). refractor runs Prism's grammars without
 * Prism's globals or its automatic page highlighting, and returns a tree (hast) instead of an HTML
 * string, so highlighted code is built as DOM nodes like the rest of a reply.
 */
import type { Root } from 'hast'
import bash from 'refractor/bash'
import { refractor } from 'refractor/core'
import css from 'refractor/css'
import diff from 'refractor/diff'
import go from 'refractor/go'
import javascript from 'refractor/javascript'
import json from 'refractor/json'
import markdown from 'refractor/markdown'
import markup from 'refractor/markup'
import python from 'refractor/python'
import rust from 'refractor/rust'
import sql from 'refractor/sql'
import typescript from 'refractor/typescript'
import yaml from 'refractor/yaml'

for (const syntax of [
  bash,
  css,
  diff,
  go,
  javascript,
  json,
  markdown,
  markup,
  python,
  rust,
  sql,
  typescript,
  yaml,
]) {
  refractor.register(syntax)
}

// Fence names models use for these grammars that Prism does not alias itself. TSX and JSX get the
// plain grammar: close enough for a chat, without two more grammars in the chunk.
const ALIASES: Readonly<Record<string, string>> = {
  tsx: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  node: 'javascript',
  jsonc: 'json',
  json5: 'json',
  zsh: 'bash',
  console: 'bash',
  shellsession: 'bash',
  python3: 'python',
  rs: 'rust',
  golang: 'go',
  patch: 'diff',
  htm: 'markup',
  postgres: 'sql',
  postgresql: 'sql',
  psql: 'sql',
}

/** The grammar's name for a fence's language, or undefined when none of these grammars fits. */
export function grammarFor(language: string): string | undefined {
  const name = language.toLowerCase()
  const resolved = ALIASES[name] ?? name
  return refractor.registered(resolved) ? resolved : undefined
}

/** The code's highlight tree, or undefined when no grammar fits the language. */
export function highlightTree(code: string, language: string): Root | undefined {
  const grammar = grammarFor(language)
  return grammar ? refractor.highlight(code, grammar) : undefined
}
