import { z } from 'zod'

/**
 * The typed handoffs of the self-update workflow. Mastra does not check a step's output against
 * its schema, so every step returns `Schema.parse(value)`; the model-written parts (research,
 * decide, implement's summary, review) are parsed from the model's JSON the same way, and
 * anything else (prose, a missing plan, an unknown verdict) fails the phase.
 */
const Text = (max: number) => z.string().max(max)

export const Plan = z.object({
  summary: Text(300),
  steps: z.array(Text(500)).min(1).max(20),
  files: z.array(Text(300)).max(20),
})
export type Plan = z.infer<typeof Plan>

/** What research finds in one iteration (model output). */
export const ResearchReport = z.object({
  findings: z
    .array(
      z.object({
        claim: Text(1_000),
        evidence: z.array(z.object({ path: Text(300), lines: Text(40).nullable() })).max(20),
      }),
    )
    .max(20),
  openQuestions: z.array(Text(500)).max(10),
  done: z.boolean(),
})
export type ResearchReport = z.infer<typeof ResearchReport>

/** The decision (model output): a no-op has no plan, a change must have one. */
export const Decision = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('noop'), reason: Text(1_000), plan: z.null() }),
  z.object({ kind: z.literal('change'), reason: Text(1_000), plan: Plan }),
])
export type Decision = z.infer<typeof Decision>

/** Implement's closing note (model output). */
export const ImplementReport = z.object({ summary: Text(1_000) })

/** The review (model output); the digest must echo the one shown. */
export const Review = z.object({
  digest: z.string().regex(/^[0-9a-f]{64}$/),
  verdict: z.enum(['approve', 'reject']),
  testIntegrity: z.enum(['unchanged', 'strengthened', 'weakened']),
  findings: z
    .array(z.object({ severity: z.enum(['blocker', 'major', 'minor', 'note']), text: Text(1_000) }))
    .max(20),
})
export type Review = z.infer<typeof Review>

/** The context every phase hands on. */
export const Ctx = z.object({
  taskId: z.string(),
  goal: z.string(),
  repo: z.string(),
  baseSha: z.string(),
  branch: z.string(),
  workTree: z.string(),
  gitDir: z.string(),
})
export type Ctx = z.infer<typeof Ctx>

export const ChangedFileOut = z.object({
  path: z.string(),
  status: z.enum(['A', 'M', 'D', 'T']),
  oldMode: z.string(),
  newMode: z.string(),
  added: z.number().nullable(),
  deleted: z.number().nullable(),
})

export const PrepareOut = z.object({ ctx: Ctx })
export const ResearchOut = z.object({
  ctx: Ctx,
  iterations: z.number().int(),
  report: ResearchReport,
})
export const DecideOut = z.object({ ctx: Ctx, decision: Decision })
export const ImplementOut = z.object({
  ctx: Ctx,
  plan: Plan,
  stepsUsed: z.number().int(),
  summary: z.string(),
})
export const InspectOut = z.object({
  ctx: Ctx,
  plan: Plan,
  treeSha: z.string(),
  digest: z.string(),
  files: z.array(ChangedFileOut),
  patch: z.string(),
})
export const VerifyOut = InspectOut.extend({
  checks: z.array(
    z.object({
      id: z.string(),
      exitCode: z.number().nullable(),
      passed: z.boolean(),
      tail: z.string(),
    }),
  ),
  allPassed: z.literal(true),
})
export const ReviewOut = VerifyOut.extend({ review: Review })
export const CommitOut = z.object({
  outcome: z.enum(['committed', 'noop']),
  commitSha: z.string().nullable(),
  ref: z.string().nullable(),
  digest: z.string().nullable(),
  reason: z.string(),
})
export type CommitOut = z.infer<typeof CommitOut>

/** Reads a model's JSON answer (bare, or in one fenced block) against `schema`; throws on prose. */
export function parseModelJson<T>(schema: z.ZodType<T>, text: string, phase: string): T {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n```\s*$/.exec(text)
  let value: unknown
  try {
    value = JSON.parse(fenced ? fenced[1]! : text)
  } catch {
    throw new Error(`the ${phase} phase answered prose, not the JSON its schema asks for`)
  }
  const parsed = schema.safeParse(value)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new Error(
      `the ${phase} phase's answer does not fit its schema: ${issue?.path.join('.') || '(root)'} ${issue?.message ?? ''}`,
    )
  }
  return parsed.data
}
