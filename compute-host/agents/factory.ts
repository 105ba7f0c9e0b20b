import { Agent, type AgentExecutionOptions } from '@mastra/core/agent'
import { redactingProcessor } from './redacting-processor.ts'
import type { MastraMemory } from '@mastra/core/memory'
import type { MastraLogger } from '@mastra/core/logger'
import type { ToolHooks } from '@mastra/core/tools'
import { createSkill } from '@mastra/core/skills'
import type { Db } from '../../db/index.ts'
import type { AgentRow } from '../../runtime/agents/index.ts'
import type { SkillRow } from '../../runtime/agents/skills.ts'
import { SUPERVISOR_AGENT_ID } from '../../runtime/agents/supervisor.ts'
import type { ToolStatus } from '../../runtime/contracts/agents.ts'
import { composeInstructions, type ActiveOverlay } from '../../runtime/evolution/overlays.ts'
import { ConfigurationError } from '../../runtime/errors.ts'
import { createConfigCache, type ConfigCache, type ConfigSnapshot } from '../config-cache.ts'
import type { GatewayModels } from '../models/gateway-models.ts'
import type { Workspace } from '@mastra/core/workspace'
import { createAgentWorkspace } from '../workspaces/agent-workspace.ts'
import { createLspInspect } from '../workspaces/lsp-inspect.ts'
import { withUnavailableNote } from './unavailable-note.ts'
import { shellRefusalFor } from '../workspaces/shell-needs-git.ts'
import type { SandboxStatus } from '../workspaces/sandbox-check.ts'
import { createLoggingMastra } from './logging-mastra.ts'
import { modelRouteOf, type RunContext, type RunContextValues } from './run-context.ts'
import { buildRoleWithheld } from '../build/delegation.ts'
import type { RunMcpTools } from '../mcp/servers/owner-servers.ts'
import type { AnyTool, ToolProvider } from './tool-provider.ts'
import { checkTool, type HostToolContext, toolStatuses } from './tool-availability.ts'

// Skills made and kept for reuse (a few per agent; cleared past this).
const MADE_SKILLS = 500

export type UnavailableTool = { agentId: string; tool: string; reason: string }

export type RunAgent = Agent<string, Record<string, AnyTool>, undefined, RunContextValues>

export type RunAgents = {
  supervisor: RunAgent
  specialists: Record<string, RunAgent>
  /** Tools an agent's membership names that this host could not bind, with the reason. */
  unavailableTools: UnavailableTool[]
  /** Display name and model override of every agent in the run. */
  profiles: Record<string, { name: string; modelOverride: string | null }>
  /**
   * Releases what the run's workspaces hold, background shell commands included; call it when
   * the run has ended. Failures are collected, never thrown.
   */
  dispose(): Promise<void>
}

/** What one run's agents hold that must be released when the run ends. */
type RunResources = {
  /** The tools as this run has them (some are decided per run: the browser's setting). */
  host: HostToolContext
  workspaces: Workspace[]
  lsp?: ReturnType<typeof createLspInspect>
  /** Why this run's repository gets no shell (looked up once per run, not once per agent). */
  shellRefusal?: string
  /** The owner's MCP servers' tools for this run (compute-host/mcp/servers/). */
  mcp?: RunMcpTools
}

/** What a caller adds to one run's agents (chat turns and tasks pass their own). */
export type BuildOptions = {
  /** The run's configuration snapshot; without it the factory reads the current one. */
  config?: ConfigSnapshot
  /** The supervisor's memory; specialists get their context from the delegation instead. */
  memory?: MastraMemory
  /** Tool hooks per agent, for example to stream each call as activity. */
  toolHooks?: (agent: { id: string; name: string }) => ToolHooks
  /** Default execution options of each specialist (step handling, budget), by its id. */
  specialistOptions?: (agentId: string) => AgentExecutionOptions<undefined>
  /** The run's repository (canonical absolute path); without it no workspace tool is offered. */
  workspaceRoot?: string
  /** Why the run has no repository, told to the model by each workspace tool it cannot have. */
  workspaceMissing?: string
  /**
   * The workspace's `allowExecTriggerWrites`: its owner lets the file tools write files that run
   * code later (exec-trigger-guard.ts). Refused when absent.
   */
  allowExecTriggerWrites?: boolean
  /** Specialists the supervisor may not delegate to in this run. */
  /**
   * Specialists the supervisor may not delegate to in this run. A promise when it is decided
   * while the run starts (the preflight brief): the supervisor's team is then looked up when
   * Mastra asks for it, after the promise settles.
   */
  withheld?: readonly string[] | Promise<readonly string[]>
  /** Tools the driver gives this run's supervisor alone (a remediation's task tools). */
  supervisorTools?: Record<string, AnyTool>
}

/**
 * Builds a run's agents from PostgreSQL on every call: instructions, description, tools, skills
 * and model override all come from the rows (read through the configuration cache, which checks
 * their version on every run), so an edit applies on the next run and there is no prompt or
 * capability fallback in code. The model is resolved per call from the run's request
 * context: an override when the row has one, otherwise the route the request selected.
 *
 * Only the supervisor gets `agents`; specialists are built without them, so they can never
 * delegate to each other.
 */
export function createAgentFactory(factoryOptions: {
  db: Db
  /** The host's configuration cache; a factory of its own otherwise (tests). */
  config?: ConfigCache
  models: GatewayModels
  tools: ToolProvider
  /** Where Mastra's own log lines go (the host log); Mastra's console logger otherwise. */
  mastraLogger?: MastraLogger
  /** The shell sandbox's start-up self-test result. */
  sandbox?: SandboxStatus
  /** Upper bound of every shell command's run time (POPAGENT_SHELL_TIMEOUT_MS). */
  shellTimeoutMs?: number
  /** The host's redactor: what agents leave in memory passes it (redacting-processor.ts). */
  redact?: (text: string) => string
  /**
   * The owner's MCP servers: each agent gets the tools of the servers the owner gave it, as
   * ordinary tools of the agent (so hooks, guards, budget, tracing and redaction apply).
   */
  mcpTools?: { forRun(config: ConfigSnapshot): Promise<RunMcpTools> }
}) {
  const { db, models, tools, mastraLogger } = factoryOptions
  const redaction = factoryOptions.redact && redactingProcessor(factoryOptions.redact)
  const config = factoryOptions.config ?? createConfigCache(db)
  const sandbox: SandboxStatus = factoryOptions.sandbox ?? {
    available: false,
    reason: 'the sandbox self-test has not run on this host',
  }
  const host: HostToolContext = { sandbox, tools }
  // Registered as a primitive, not only set: the model loop takes its logger from the agent's
  // primitives when it builds the LLM, and falls back to Mastra's console logger without them,
  // which printed whole provider errors (request bodies included) unredacted to stdout.
  const withLogger = (agent: RunAgent) => {
    if (mastraLogger) agent.__registerPrimitives({ logger: mastraLogger })
    return agent
  }
  // Observational Memory's own agents find a logger only through a registered Mastra.
  const loggingMastra = mastraLogger && createLoggingMastra(mastraLogger)
  const withMemoryLogger = (memory: MastraMemory) => {
    if (mastraLogger) memory.__setLogger(mastraLogger)
    if (loggingMastra) memory.__registerMastra(loggingMastra)
    return memory
  }

  function buildAgent(
    row: AgentRow,
    skills: SkillRow[],
    unavailable: UnavailableTool[],
    options: BuildOptions,
    run: RunResources,
    overlays: readonly ActiveOverlay[],
  ) {
    const bound: Record<string, AnyTool> = {}
    for (const name of row.tools) {
      const check = checkTool(name, row, run.host)
      if (check.kind === 'unavailable') {
        unavailable.push({ agentId: row.id, tool: name, reason: check.reason })
        continue
      }
      if (check.kind === 'bound') {
        bound[name] = check.tool
        continue
      }
      // A repository tool: this run must have a repository (and, for the shell, a `.git`).
      const reason = !options.workspaceRoot
        ? (options.workspaceMissing ?? 'this run has no repository directory to work in')
        : name === 'shell'
          ? run.shellRefusal
          : undefined
      if (reason) unavailable.push({ agentId: row.id, tool: name, reason })
      else if (name === 'lsp-inspect') {
        run.lsp ??= createLspInspect(options.workspaceRoot!)
        bound[name] = run.lsp.tool
      }
    }
    if (run.mcp) {
      Object.assign(bound, run.mcp.toolsOf(row.id))
      unavailable.push(...run.mcp.unavailable.filter((u) => u.agentId === row.id))
    }
    const hooks = options.toolHooks?.({ id: row.id, name: row.displayName })
    const workspace =
      options.workspaceRoot &&
      createAgentWorkspace({
        agentId: row.id,
        root: options.workspaceRoot,
        access: row.workspaceAccess,
        tools: row.tools,
        sandboxAvailable: sandbox.available && !run.shellRefusal,
        shellTimeoutMs: factoryOptions.shellTimeoutMs ?? 120_000,
        allowExecTriggerWrites: options.allowExecTriggerWrites === true,
      })
    if (workspace) run.workspaces.push(workspace)
    return {
      id: row.id,
      name: row.displayName,
      ...(workspace && { workspace }),
      description: row.delegationDescription,
      // The owner's instructions first, then what evolution learned (never mixed into them).
      instructions: withUnavailableNote(
        composeInstructions(
          row.instructions,
          overlays.filter((o) => o.agentId === row.id),
        ),
        unavailable.filter((u) => u.agentId === row.id),
      ),
      model: ({ requestContext }: { requestContext: RunContext }) =>
        models.languageModel(row.modelOverride ?? modelRouteOf(requestContext)),
      tools: bound,
      ...(hooks && { hooks }),
      ...(redaction && { inputProcessors: [redaction], outputProcessors: [redaction] }),
      skills: skills.flatMap((s) => inlineSkill(row.id, s)),
    }
  }

  // A row the API accepted can still be one Mastra's loader refuses (a row saved before the API
  // checked the same limit, or a rule a later Mastra adds). That skill is left out of the run
  // with a warning naming it; one bad skill must not stop every run of its agent from building.
  // Validating a skill (Mastra counts its instructions' words) cost more than the rest of an
  // agent's build: each skill is made once per content and reused while its row says the same.
  const skillsMade = new Map<string, ReturnType<typeof createSkill>>()
  // A row object is the configuration snapshot's, shared by every run of its version: the skill
  // made for it is found without building the content key (a skill's whole text) on every run.
  const skillOfRow = new WeakMap<SkillRow, ReturnType<typeof createSkill>>()
  function inlineSkill(agentId: string, s: SkillRow) {
    const ofRow = skillOfRow.get(s)
    if (ofRow) return [ofRow]
    const skill = madeSkill(agentId, s)
    if (!skill) return []
    skillOfRow.set(s, skill)
    return [skill]
  }
  function madeSkill(agentId: string, s: SkillRow) {
    const fields = [s.id, s.name, s.description, s.instructions, s.references, s.sourceUrl]
    const key = JSON.stringify([...fields, s.evolutionManaged])
    const made = skillsMade.get(key)
    if (made) return made
    try {
      const skill = createSkill({
        name: s.name,
        description: s.description,
        instructions: s.instructions,
        references: s.references,
        metadata: { skillId: s.id, sourceUrl: s.sourceUrl, evolutionManaged: s.evolutionManaged },
      })
      if (skillsMade.size >= MADE_SKILLS) skillsMade.clear()
      skillsMade.set(key, skill)
      return skill
    } catch (error) {
      mastraLogger?.warn('a skill was left out of the run: Mastra refused it', {
        agentId,
        skillId: s.id,
        reason: error instanceof Error ? error.message : String(error),
      })
      return undefined
    }
  }

  return {
    /** Each agent's tools as this host can run them, before any run (the agent editor's list). */
    async toolStatuses(): Promise<Record<string, ToolStatus[]>> {
      const snapshot = await config.snapshot()
      // The tools decided per run, decided as the next run would (the browser's setting).
      const [rows, runTools] = await Promise.all([
        snapshot.agentRows(),
        tools.forRun ? tools.forRun(snapshot) : tools,
      ])
      const runHost: HostToolContext = { sandbox, tools: runTools }
      return Object.fromEntries(rows.map((row) => [row.id, toolStatuses(row, runHost)]))
    },
    async build(options: BuildOptions = {}): Promise<RunAgents> {
      const snapshot = options.config ?? (await config.snapshot())
      // Tools decided per run (the browser's setting and live catalog, the MCP servers' tools),
      // beside the row reads. One Promise.all: a promise started here and awaited only after
      // another await would be an unhandled rejection when that other await throws first (a
      // database restarting under a task attempt killed the host that way).
      const [rows, skillRows, overlays, runTools, mcp] = await Promise.all([
        snapshot.agentRows(),
        snapshot.enabledSkillRows(),
        snapshot.learnedOverlays(),
        tools.forRun ? tools.forRun(snapshot) : tools,
        factoryOptions.mcpTools?.forRun(snapshot),
      ])
      const skillsOf = (id: string) => skillRows.filter((s) => s.agentId === id)
      const unavailableTools: UnavailableTool[] = []
      const run: RunResources = {
        host: { sandbox, tools: runTools },
        workspaces: [],
        ...(mcp && { mcp }),
        ...(options.workspaceRoot && { shellRefusal: shellRefusalFor(options.workspaceRoot) }),
      }
      const supervisorRow = rows.find((r) => r.id === SUPERVISOR_AGENT_ID)
      if (!supervisorRow) {
        throw new ConfigurationError(
          { id: SUPERVISOR_AGENT_ID },
          {
            message: `the supervisor agent "${SUPERVISOR_AGENT_ID}" is missing from popagent_agents`,
          },
        )
      }
      const specialists: RunAgents['specialists'] = {}
      for (const row of rows) {
        if (row.id === SUPERVISOR_AGENT_ID || !row.delegationEligible) continue
        if (Array.isArray(options.withheld) && options.withheld.includes(row.id)) continue
        const buildWithheld = buildRoleWithheld(row, (tool) => checkTool(tool, row, run.host))
        if (buildWithheld) {
          // The supervisor goes without this delegation, and its instructions say why.
          unavailableTools.push({
            agentId: SUPERVISOR_AGENT_ID,
            tool: `agent-${row.id}`,
            reason: buildWithheld,
          })
          continue
        }
        specialists[row.id] = withLogger(
          new Agent({
            ...buildAgent(row, skillsOf(row.id), unavailableTools, options, run, overlays),
            ...(options.specialistOptions && { defaultOptions: options.specialistOptions(row.id) }),
          }),
        )
      }
      const built = buildAgent(
        supervisorRow,
        skillsOf(supervisorRow.id),
        unavailableTools,
        options,
        run,
        overlays,
      )
      const supervisor: RunAgent = withLogger(
        new Agent({
          ...built,
          tools: { ...built.tools, ...options.supervisorTools },
          agents: teamOf(specialists, options.withheld),
          ...(options.memory && { memory: withMemoryLogger(options.memory) }),
        }),
      )
      const profiles = Object.fromEntries(
        rows.map((r) => [r.id, { name: r.displayName, modelOverride: r.modelOverride }]),
      )
      const dispose = async () => {
        await Promise.allSettled([
          ...run.workspaces.map((w) => w.destroy()),
          ...(run.lsp ? [run.lsp.dispose()] : []),
        ])
      }
      return { supervisor, specialists, unavailableTools, profiles, dispose }
    },
  }
}

export type AgentFactory = ReturnType<typeof createAgentFactory>

/** The supervisor's specialists, less those withheld once that is known. */
function teamOf<T>(
  specialists: Record<string, T>,
  withheld: readonly string[] | Promise<readonly string[]> | undefined,
): Record<string, T> | (() => Promise<Record<string, T>>) {
  if (!(withheld instanceof Promise)) return specialists
  return async () => {
    const out = new Set(await withheld)
    return Object.fromEntries(Object.entries(specialists).filter(([id]) => !out.has(id)))
  }
}
