import { DOC_SLUG_MAX } from '../../db/doc-enums.ts'

/**
 * The slug of an imported file: its repository path without the Markdown extension and without a
 * leading `docs/`, lowercased, each other character run made a dash. `README.md` → `readme`,
 * `docs/Guides/Getting Started.md` → `guides/getting-started`.
 */
export function slugFromPath(path: string): string {
  const parts = path
    .replace(/\.(md|markdown)$/i, '')
    .replace(/^docs\//, '')
    .split('/')
    .map((part) =>
      part
        .toLowerCase()
        .replace(/[^a-z0-9._-]+/g, '-')
        .replace(/^[^a-z0-9]+|-+$/g, ''),
    )
    .filter(Boolean)
  return (parts.join('/') || 'untitled').slice(0, DOC_SLUG_MAX)
}

/** The first level-one heading outside code fences, else the file name. */
export function titleOf(body: string, path: string): string {
  let fenced = false
  for (const line of body.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced
    const heading = !fenced && /^#\s+(.+?)\s*#*\s*$/.exec(line)
    if (heading) return heading[1]!.slice(0, 200)
  }
  return (path.split('/').at(-1) ?? path).replace(/\.(md|markdown)$/i, '').slice(0, 200)
}
