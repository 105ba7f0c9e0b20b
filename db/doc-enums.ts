/**
 * Project documentation (W7) enums and bounds, import-free so the schema, the contracts and the
 * UI share one copy (like task-enums.ts).
 */

/** Written in the UI or the API, or imported from the workspace's own Markdown files. */
export const DOC_SOURCES = ['written', 'imported'] as const
export type DocSource = (typeof DOC_SOURCES)[number]

/**
 * Where a document's search index stands: `pending` until the indexer takes it (and again after
 * each change), `indexed` once its chunks match its current text, `failed` with the reason.
 */
export const DOC_INDEX_STATES = ['pending', 'indexing', 'indexed', 'failed'] as const
export type DocIndexState = (typeof DOC_INDEX_STATES)[number]

/** A document's Markdown: large enough for a long design note, small enough to index at once. */
export const DOC_MAX_CHARS = 200_000
/** Path-like, lowercase: `guides/getting-started`. */
export const DOC_SLUG_PATTERN = '^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)*$'
export const DOC_SLUG_MAX = 200
