import type { BrowserAccess, WorkspaceAccess } from '../schema/agents.ts'

/** One seeded system agent, as the versioned role data migration writes it. */
export type AgentSeed = {
  id: string
  displayName: string
  /** What the supervisor reads when it decides whom to delegate to. */
  delegationDescription: string
  /** Complete role instructions (Markdown). */
  instructions: string
  /** Where the role's guidance comes from. */
  sourceUrls: string[]
  workspaceAccess: WorkspaceAccess
  browserAccess: BrowserAccess
  delegationEligible: boolean
  /** Tool catalog names; a test checks every seeded role against the role rules. */
  tools: string[]
  modelOverride: string | null
}

/** One seeded Agent Skill (https://agentskills.io/specification). */
export type SkillSeed = {
  agentId: string
  /** Lowercase letters, digits and single hyphens, 1–64 characters. */
  name: string
  /** What the skill does and when to use it (≤ 1024 characters). */
  description: string
  /** The SKILL.md body (Markdown). */
  instructions: string
  /** Bundled reference files, relative path → Markdown content. */
  references: Record<string, string>
  /** Provenance: the public page the skill is attributed to. */
  sourceUrl: string
}
