import { z } from 'zod'
import {
  DOC_INDEX_STATES,
  DOC_MAX_CHARS,
  DOC_SLUG_MAX,
  DOC_SLUG_PATTERN,
  DOC_SOURCES,
} from '../../db/doc-enums.ts'
import { DocId, WorkspaceId } from '../ids.ts'
import { Line, StorableText, Title } from './fields.ts'

/** Project documentation (W7) wire types, shared by the handlers, the UI and the agents' tool. */

/** A document without its text, as lists show it. */
export const DocSummary = z.object({
  id: z.string(),
  workspaceId: z.string(),
  slug: z.string(),
  title: z.string(),
  source: z.enum(DOC_SOURCES),
  /** The repository path an imported document came from. */
  sourcePath: z.string().nullable(),
  indexState: z.enum(DOC_INDEX_STATES),
  indexError: z.string().nullable(),
  chunkCount: z.number(),
  chars: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type DocSummary = z.infer<typeof DocSummary>
export const Doc = DocSummary.extend({ body: z.string() })
export type Doc = z.infer<typeof Doc>

export const DocSlug = z
  .string()
  .trim()
  .min(1)
  .max(DOC_SLUG_MAX)
  .regex(
    new RegExp(DOC_SLUG_PATTERN),
    'a path-like slug: lowercase letters, digits, dots, dashes and underscores, parts joined by /',
  )
/** Markdown text: storable (no NUL or lone surrogate) and within the size bound. */
export const DocBody = StorableText(DOC_MAX_CHARS).refine((v) => v.trim().length > 0, {
  message: 'the document is empty',
})

export const CreateDocInput = z.strictObject({ slug: DocSlug, title: Title, body: DocBody })
export type CreateDocInput = z.infer<typeof CreateDocInput>
export const PatchDocInput = CreateDocInput.partial().refine((v) => Object.keys(v).length > 0, {
  message: 'give a slug, a title, a body, or several',
})
export type PatchDocInput = z.infer<typeof PatchDocInput>

export const WorkspaceDocsParams = z.strictObject({ id: WorkspaceId })
export const DocParams = z.strictObject({ id: WorkspaceId, docId: DocId })

export const DocSearchInput = z.strictObject({
  query: Line(500),
  limit: z.number().int().min(1).max(20).default(5),
})
export type DocSearchInput = z.infer<typeof DocSearchInput>

/** One search answer: where it is (document, heading path) and a bounded excerpt. */
export const DocSearchHit = z.object({
  docId: z.string(),
  slug: z.string(),
  title: z.string(),
  headingPath: z.string(),
  excerpt: z.string(),
  score: z.number(),
})
export type DocSearchHit = z.infer<typeof DocSearchHit>
export const DocSearchResult = z.object({
  results: z.array(DocSearchHit),
  /** How candidates were found and ordered, said plainly (full text only, until vectors exist). */
  method: z.string(),
})
export type DocSearchResult = z.infer<typeof DocSearchResult>

/** A Markdown file the compute host read from a workspace's repository for an import. */
export const ImportedFile = z.object({ path: z.string(), body: z.string() })
export type ImportedFile = z.infer<typeof ImportedFile>
export const ImportDocsResult = z.object({
  created: z.number(),
  updated: z.number(),
  unchanged: z.number(),
  documents: z.array(DocSummary),
})
export type ImportDocsResult = z.infer<typeof ImportDocsResult>
