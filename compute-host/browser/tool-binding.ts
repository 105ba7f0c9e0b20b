import type { AgentRow } from '../../runtime/agents/index.ts'
import type { BrowserOptIns } from '../../runtime/browser/policy.ts'
import type {
  BoundTool,
  RunToolImplementation,
  ToolImplementation,
} from '../agents/tool-provider.ts'
import type { ConfigSnapshot } from '../config-cache.ts'
import type { OutboundPolicy } from '../net/outbound-guard.ts'
import { createBrowserTool } from './gateway-tool.ts'
import type { BrowserServer } from './server-connection.ts'
import type { SecretSource } from './secret-fill.ts'
import type { BrowserSessions } from './sessions.ts'

/** How long a run waits for the server's catalog before going without the browser. */
const CATALOG_WAIT_MS = 3_000

type Deps = {
  server: BrowserServer
  sessions: BrowserSessions
  navigation: OutboundPolicy
  redact: (text: string) => string
  secrets?: SecretSource
}

function noAccess(agent: AgentRow): BoundTool | undefined {
  return agent.browserAccess === 'none'
    ? { ok: false, reason: `"${agent.id}" has no browser access` }
    : undefined
}

/**
 * The `browser` tool, decided per run: absent when the global browser setting is off (read from
 * the run's configuration snapshot, so a change applies to the next run), for an agent without
 * browser access, and while the server's catalog cannot be had (with the reason). Self-update
 * phases build their agents without this provider (self-update/phase-agents.ts), so the browser
 * never reaches them.
 */
export function browserToolForRun(deps: Deps): RunToolImplementation {
  return async (config: ConfigSnapshot): Promise<ToolImplementation> => {
    const browserSettings = await config.browser()
    if (!browserSettings.enabled) {
      return () => ({ ok: false, reason: 'browser automation is switched off in the settings' })
    }
    const optIns: BrowserOptIns = {
      allowScriptEvaluation: browserSettings.allowScriptEvaluation,
      allowCredentialReaders: browserSettings.allowCredentialReaders,
      uploadFolder: browserSettings.uploadFolder,
    }
    const catalog = await Promise.race([
      deps.server.catalog(),
      new Promise<never>((_, fail) =>
        setTimeout(
          () =>
            fail(new Error(`the browser server did not answer within ${CATALOG_WAIT_MS / 1000} s`)),
          CATALOG_WAIT_MS,
        ).unref(),
      ),
    ]).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))))
    if (catalog instanceof Error) {
      const reason = `the browser is unavailable: ${catalog.message}`
      return (agent) => noAccess(agent) ?? { ok: false, reason }
    }
    return (agent) =>
      noAccess(agent) ?? {
        ok: true,
        tool: createBrowserTool({
          catalog,
          sessions: deps.sessions,
          role: agent.browserAccess as 'read-only' | 'interactive',
          optIns,
          navigation: deps.navigation,
          redact: deps.redact,
          ...(deps.secrets && { secrets: deps.secrets }),
        }),
      }
  }
}

/** The agent editor's view before any run: the connection's state as last known. */
export function browserToolStatus(deps: Deps): ToolImplementation {
  return (agent) => {
    const denied = noAccess(agent)
    if (denied) return denied
    const state = deps.server.state()
    if (state.status !== 'connected') {
      return {
        ok: false,
        reason:
          state.status === 'down'
            ? `the browser server is unreachable: ${state.reason} (checked again on each run)`
            : 'connecting to the browser server',
      }
    }
    const catalog = deps.server.knownCatalog()
    if (!catalog) return { ok: false, reason: 'the browser catalog is not loaded yet' }
    return {
      ok: true,
      tool: createBrowserTool({
        catalog,
        sessions: deps.sessions,
        role: agent.browserAccess as 'read-only' | 'interactive',
        optIns: { allowScriptEvaluation: false, allowCredentialReaders: false, uploadFolder: '' },
        navigation: deps.navigation,
        redact: deps.redact,
      }),
    }
  }
}
