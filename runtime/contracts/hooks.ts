import { z } from 'zod'
import { HOOK_EVENTS, HOOK_FAILURES, HOOK_KINDS, HOOK_RUN_OUTCOMES } from '../../db/hook-enums.ts'
import { HookId, SessionId, TaskId } from '../ids.ts'
import { Title } from './fields.ts'

/**
 * Hooks as the API shows and takes them. A command is an argv run without a shell; an HTTP hook
 * is an https URL to a public address (or http/https on loopback when `allowLoopback` says the
 * owner means it); runtime/hooks checks the URL, and the host checks the address it connects to.
 */
export const MIN_HOOK_TIMEOUT_MS = 100
export const MAX_HOOK_TIMEOUT_MS = 60_000

export const HookEvent = z.enum(HOOK_EVENTS)
/** `*`, an exact tool name, or a name prefix ending in `*`; no regular expressions. */
export const HookMatcher = z
  .string()
  .regex(
    /^(\*|[a-z0-9][a-z0-9_.-]{0,99}\*?)$/,
    'use *, a tool name or a tool-name prefix ending in *',
  )
const Argv = z.array(z.string().min(1).max(4_096)).min(1).max(64)

const HookFields = {
  name: Title,
  event: HookEvent,
  matcher: HookMatcher.default('*'),
  timeoutMs: z.number().int().min(MIN_HOOK_TIMEOUT_MS).max(MAX_HOOK_TIMEOUT_MS).default(10_000),
  priority: z.number().int().min(-1_000).max(1_000).default(100),
  enabled: z.boolean().default(true),
}

export const CreateHookInput = z.discriminatedUnion('kind', [
  z.strictObject({ ...HookFields, kind: z.literal('command'), command: Argv }),
  z.strictObject({
    ...HookFields,
    kind: z.literal('http'),
    url: z.url().max(2_048),
    allowLoopback: z.boolean().default(false),
  }),
])
export type CreateHookInput = z.output<typeof CreateHookInput>

export const PatchHookInput = z.strictObject({
  name: Title.optional(),
  matcher: HookMatcher.optional(),
  timeoutMs: HookFields.timeoutMs.optional(),
  priority: HookFields.priority.optional(),
  enabled: z.boolean().optional(),
  command: Argv.optional(),
  url: z.url().max(2_048).optional(),
  allowLoopback: z.boolean().optional(),
})
export type PatchHookInput = z.infer<typeof PatchHookInput>

export const HookParams = z.strictObject({ id: HookId })
export const SessionHookParams = z.strictObject({ id: SessionId })
export const TaskHookParams = z.strictObject({ id: TaskId })

/** What a test run sends the hook as its event's `data` (the rest of the envelope is filled in). */
export const TestHookInput = z.strictObject({
  toolName: z.string().max(200).optional(),
  input: z.unknown().optional(),
  prompt: z.string().max(20_000).optional(),
})

export const Hook = z.object({
  id: z.string(),
  name: z.string(),
  event: HookEvent,
  matcher: z.string(),
  kind: z.enum(HOOK_KINDS),
  command: z.array(z.string()).nullable(),
  url: z.string().nullable(),
  allowLoopback: z.boolean(),
  timeoutMs: z.number(),
  priority: z.number(),
  enabled: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type Hook = z.infer<typeof Hook>

export const HookRun = z.object({
  id: z.string(),
  hookId: z.string(),
  hookName: z.string(),
  event: HookEvent,
  sessionId: z.string().nullable(),
  taskId: z.string().nullable(),
  toolName: z.string().nullable(),
  outcome: z.enum(HOOK_RUN_OUTCOMES),
  failure: z.enum(HOOK_FAILURES).nullable(),
  reason: z.string().nullable(),
  context: z.string().nullable(),
  inputPreview: z.string(),
  outputPreview: z.string().nullable(),
  startedAt: z.string(),
  durationMs: z.number().nullable(),
})
export type HookRun = z.infer<typeof HookRun>

/** The merged verdict of every matching hook, as a test run reports it. */
export const HookVerdict = z.object({
  decision: z.enum(['allow', 'deny', 'ask']),
  reason: z.string().nullable(),
  context: z.string().nullable(),
  runs: z.array(HookRun),
})
export type HookVerdict = z.infer<typeof HookVerdict>
