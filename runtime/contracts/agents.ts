import { z } from 'zod'
import { SkillId } from '../ids.ts'
import { BROWSER_ACCESS_LEVELS, WORKSPACE_ACCESS_LEVELS } from './agent-enums.ts'
import { Line, ModelId, StorableText } from './fields.ts'

/**
 * Agent and Agent Skill wire types, shared by the handlers, the UI and the CLI. Tool names are
 * checked against the tool catalog by the agent store, which knows the role rules; the schema
 * here only bounds the shape.
 */

export const AgentId = z
  .string()
  .max(64)
  .regex(/^[a-z][a-z0-9-]*$/, 'an agent id: lowercase letters, digits and hyphens')

export const WorkspaceAccess = z.enum(WORKSPACE_ACCESS_LEVELS)
export const BrowserAccess = z.enum(BROWSER_ACCESS_LEVELS)
const Url = z.url({ protocol: /^https?$/ }).max(2_000)

export const Agent = z.object({
  id: z.string(),
  displayName: z.string(),
  delegationDescription: z.string(),
  instructions: z.string(),
  sourceUrls: z.array(z.string()),
  workspaceAccess: WorkspaceAccess,
  browserAccess: BrowserAccess,
  delegationEligible: z.boolean(),
  tools: z.array(z.string()),
  modelOverride: z.string().nullable(),
  updatedAt: z.string(),
})
export type Agent = z.infer<typeof Agent>

/**
 * Whether this host can run one of an agent's tools: `available` (with `needsRepository` when the
 * run's repository carries it, so a run without one still goes without), or not, with the host's
 * reason. The factory builds runs from the same answer, so no listed tool is dropped silently.
 */
export const ToolStatus = z.discriminatedUnion('available', [
  z.object({ tool: z.string(), available: z.literal(true), needsRepository: z.boolean() }),
  z.object({ tool: z.string(), available: z.literal(false), reason: z.string() }),
])
export type ToolStatus = z.infer<typeof ToolStatus>
export const AgentToolStatuses = z.object({ agents: z.record(z.string(), z.array(ToolStatus)) })
export const AgentTools = z.object({ tools: z.array(ToolStatus) })

export const PatchAgentInput = z
  .strictObject({
    displayName: Line(100),
    delegationDescription: Line(2_000),
    instructions: Line(100_000),
    sourceUrls: z.array(Url).max(20),
    workspaceAccess: WorkspaceAccess,
    browserAccess: BrowserAccess,
    delegationEligible: z.boolean(),
    tools: z.array(z.string().min(1).max(100)).max(100),
    modelOverride: ModelId.nullable(),
  })
  .partial()
  .refine((v) => Object.keys(v).length > 0, { message: 'give at least one field to change' })
export type PatchAgentInput = z.infer<typeof PatchAgentInput>

/** Agent Skills names: lowercase letters and digits in hyphen-separated words, 1–64 characters. */
export const SkillName = z
  .string()
  .max(64)
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'lowercase letters and digits, words joined by single hyphens')

// A reference is a relative path inside the skill: no absolute paths, no `..`, no backslashes.
const ReferencePath = z
  .string()
  .min(1)
  .max(200)
  .regex(/^(?!\/)(?!.*(^|\/)\.\.?(\/|$))[A-Za-z0-9._\/-]+$/, 'a relative path such as notes.md')
const References = z
  .record(ReferencePath, StorableText(100_000))
  .refine((r) => Object.keys(r).length <= 20, 'at most 20 references')

/**
 * A skill's description. Mastra's skill loader counts UTF-16 code units (`string.length`) against
 * its 1,024 limit, while zod's `max` counts code points, so 1,024 emoji passed here and then made
 * every run of the agent fail to build. Both limits are checked: an emoji counts as two.
 */
const SKILL_DESCRIPTION_MAX = 1_024
const SkillDescription = Line(SKILL_DESCRIPTION_MAX).refine(
  (d) => d.length <= SKILL_DESCRIPTION_MAX,
  `at most ${SKILL_DESCRIPTION_MAX} UTF-16 code units (a character outside the Basic Multilingual Plane, such as an emoji, counts as two)`,
)

export const AgentSkill = z.object({
  id: z.string(),
  agentId: z.string(),
  name: z.string(),
  description: z.string(),
  instructions: z.string(),
  references: z.record(z.string(), z.string()),
  sourceUrl: z.string().nullable(),
  enabled: z.boolean(),
  evolutionManaged: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type AgentSkill = z.infer<typeof AgentSkill>

export const CreateSkillInput = z.strictObject({
  name: SkillName,
  description: SkillDescription,
  instructions: Line(100_000),
  references: References.default({}),
  sourceUrl: Url.nullable().default(null),
  enabled: z.boolean().default(true),
})
export type CreateSkillInput = z.infer<typeof CreateSkillInput>

export const PatchSkillInput = z
  .strictObject({
    name: SkillName,
    description: SkillDescription,
    instructions: Line(100_000),
    references: References,
    sourceUrl: Url.nullable(),
    enabled: z.boolean(),
  })
  .partial()
  .refine((v) => Object.keys(v).length > 0, { message: 'give at least one field to change' })
export type PatchSkillInput = z.infer<typeof PatchSkillInput>

export const SkillParams = z.strictObject({ id: AgentId, skillId: SkillId })
export const AgentParams = z.strictObject({ id: AgentId })
