import { z } from 'zod'
import type { BuildToolName, BUILD_OPERATIONS } from './operations.ts'

/**
 * The `structuredContent` each Build operation may answer with, one strict schema per operation.
 * A field the schema does not name, or one of the wrong type, makes the whole answer a typed
 * `malformed` error: nothing the server adds passes through to the model or into the evidence
 * unread. An answer without `structuredContent` (text parts only) is not checked here.
 *
 * The shapes are popagent's expectation of the AkurAI Build server, like the operation names
 * (docs/build.md, "Not built yet": not yet checked against a live server); the evidence
 * (`evidence.ts`) reads only fields named here.
 */
const Id = z.union([z.string().min(1).max(200), z.number().int().nonnegative()])
const Text = (max: number) => z.string().max(max)
const Url = z.string().max(2_000)
const Cursor = Text(500).optional()
const Time = Text(64)

const Run = z.strictObject({
  runId: Id,
  status: Text(64),
  repository: Text(200).optional(),
  branch: Text(250).optional(),
  ref: Text(250).optional(),
  commit: Text(64).optional(),
  url: Url.optional(),
  createdAt: Time.optional(),
  finishedAt: Time.optional(),
})
const Repository = z.strictObject({
  id: Id,
  name: Text(200),
  defaultBranch: Text(250).optional(),
  branch: Text(250).optional(),
  commit: Text(64).optional(),
  url: Url.optional(),
  visibility: z.enum(['public', 'private', 'internal']).optional(),
})
const Worker = z.strictObject({
  id: Id,
  status: Text(64),
  name: Text(200).optional(),
  labels: z.array(Text(100)).max(100).optional(),
})
const AuditEvent = z.strictObject({
  id: Id,
  at: Time,
  actor: Text(200),
  action: Text(200),
  target: Text(500).optional(),
})
const ContentItem = z.strictObject({
  id: Id,
  kind: Text(64).optional(),
  title: Text(500).optional(),
  status: Text(64).optional(),
  url: Url.optional(),
})
const Release = z.strictObject({
  id: Id,
  version: Text(100),
  status: Text(64),
  commit: Text(64).optional(),
  url: Url.optional(),
})
const Issue = z.strictObject({
  number: Id,
  title: Text(500).optional(),
  state: Text(64).optional(),
  labels: z.array(Text(100)).max(100).optional(),
  repository: Text(200).optional(),
  url: Url.optional(),
})
const list = <T extends z.ZodType>(key: string, item: T) =>
  z.strictObject({ [key]: z.array(item).max(1_000), nextCursor: Cursor })

type OperationName = (typeof BUILD_OPERATIONS)[BuildToolName][number]['name']

export const BUILD_RESULT_SCHEMAS: Record<OperationName, z.ZodType> = {
  repositories_list: list('repositories', Repository),
  repositories_get: Repository,
  repositories_update: Repository,
  runs_list: list('runs', Run),
  runs_get: Run,
  runs_queue: Run,
  runs_cancel: Run,
  workers_list: list('workers', Worker),
  workers_drain: Worker,
  cache_stats: z.strictObject({
    entries: z.number().int().nonnegative(),
    bytes: z.number().int().nonnegative(),
    hitRate: z.number().min(0).max(1).optional(),
  }),
  cache_prune: z.strictObject({
    removedEntries: z.number().int().nonnegative(),
    freedBytes: z.number().int().nonnegative(),
  }),
  audit_list: list('events', AuditEvent),
  pipelines_validate: z.strictObject({
    valid: z.boolean(),
    errors: z
      .array(
        z.strictObject({
          message: Text(2_000),
          path: Text(500).optional(),
          line: z.number().int().positive().optional(),
        }),
      )
      .max(200),
  }),
  metrics_get: z.strictObject({ metrics: z.record(Text(200), z.number()) }),
  community_content_list: list('items', ContentItem),
  community_content_update: ContentItem,
  releases_list: list('releases', Release),
  releases_create: Release,
  releases_publish: Release,
  environments_promote: z.strictObject({
    environment: Text(100),
    status: Text(64),
    release: Id.optional(),
    runId: Id.optional(),
    url: Url.optional(),
  }),
  public_repositories_list: list('repositories', Repository),
  public_repositories_get: Repository,
  issues_list: list('issues', Issue),
  issues_get: Issue,
  issues_create: Issue,
  issues_label: Issue,
  comments_create: z.strictObject({ id: Id, issue: Id, url: Url.optional() }),
}

export type BuildResultCheck =
  { ok: true; structuredContent: Record<string, unknown> } | { ok: false; message: string }

/**
 * `structured` checked against `operation`'s schema. A refusal names where and what (a path and
 * zod's issue code, an unknown key's name cut to a safe token), never the server's values.
 */
export function checkBuildResult(operation: string, structured: unknown): BuildResultCheck {
  const schema = (BUILD_RESULT_SCHEMAS as Record<string, z.ZodType | undefined>)[operation]
  if (!schema) return { ok: false, message: `${operation} has no result schema` }
  const parsed = schema.safeParse(structured)
  if (parsed.success) return { ok: true, structuredContent: parsed.data as Record<string, unknown> }
  const issues = parsed.error.issues.slice(0, 5).map((issue) => {
    const at = issue.path.map((p) => safeToken(String(p))).join('.') || 'the answer'
    if (issue.code === 'unrecognized_keys') {
      return `${at}: unknown field ${issue.keys.slice(0, 5).map(safeToken).join(', ')}`
    }
    return `${at}: ${issue.code === 'invalid_type' ? `not ${issue.expected}` : issue.code}`
  })
  return {
    ok: false,
    message: `${operation} answered structuredContent outside its schema (${issues.join('; ')})`,
  }
}

function safeToken(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64)
}
