import { z } from 'zod'
import * as ids from '../../runtime/ids.ts'
import * as agents from '../../runtime/contracts/agents.ts'
import * as chat from '../../runtime/contracts/chat.ts'
import * as errors from '../../runtime/contracts/errors.ts'
import * as fields from '../../runtime/contracts/fields.ts'
import * as health from '../../runtime/contracts/health.ts'
import * as memories from '../../runtime/contracts/memories.ts'
import * as hooks from '../../runtime/contracts/hooks.ts'
import * as liveTurns from '../../runtime/contracts/live-turns.ts'
import * as models from '../../runtime/contracts/models.ts'
import * as schedules from '../../runtime/contracts/schedules.ts'
import * as secrets from '../../runtime/contracts/secrets.ts'
import * as sessions from '../../runtime/contracts/sessions.ts'
import * as sessionExport from '../../runtime/contracts/session-export.ts'
import * as settings from '../../runtime/contracts/settings.ts'
import * as tasks from '../../runtime/contracts/tasks.ts'
import * as workspaces from '../../runtime/contracts/workspaces.ts'

/**
 * The modules whose exported zod schemas the /api routes validate with. A schema's export name
 * becomes its name in the document (`#/components/schemas/CreateSessionInput`), and a named
 * schema nested in another (`Title` in `CreateSessionInput`) becomes a `$ref`. A schema from a
 * module missing here still appears, inlined under a name made from its route. The compute
 * host's internal contracts (host-api.ts) are left out: they are not part of /api.
 */
const MODULES = [
  ids,
  fields,
  errors,
  agents,
  chat,
  health,
  memories,
  hooks,
  liveTurns,
  models,
  schedules,
  secrets,
  sessions,
  sessionExport,
  settings,
  tasks,
  workspaces,
]

/** Export name of every zod schema of MODULES; a re-export keeps its first name. */
export function contractNames(): Map<z.ZodType, string> {
  const names = new Map<z.ZodType, string>()
  const taken = new Set<string>()
  for (const module of MODULES) {
    for (const [name, value] of Object.entries(module)) {
      if (!(value instanceof z.ZodType) || names.has(value)) continue
      // Two different schemas under one name would make one `$ref` mean either.
      if (taken.has(name)) throw new Error(`two contract schemas are both named ${name}`)
      names.set(value, name)
      taken.add(name)
    }
  }
  return names
}
