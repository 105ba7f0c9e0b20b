/**
 * The agent access levels and model sources, free of any import: the Drizzle schema (its column types and check
 * constraints), the wire contracts and (through them) the UI share these lists.
 */

/** What an agent may do in the repository: nothing, read, or read and write. */
export const WORKSPACE_ACCESS_LEVELS = ['none', 'read-only', 'read-write'] as const
export type WorkspaceAccess = (typeof WORKSPACE_ACCESS_LEVELS)[number]

/** What an agent may do in the browser: nothing, read pages, or act on them. */
export const BROWSER_ACCESS_LEVELS = ['none', 'read-only', 'interactive'] as const
export type BrowserAccess = (typeof BROWSER_ACCESS_LEVELS)[number]

/** Where the agents' default model comes from (the agent-runtime settings). */
export const MODEL_SOURCES = ['configured', 'local', 'free-coding-auto'] as const
export type ModelSource = (typeof MODEL_SOURCES)[number]
