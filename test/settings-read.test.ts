/**
 * Every setting the owner can change changes something (issue 41): each field of each settings
 * singleton is read by the code that runs (compute-host, runtime, handlers, cli; not the contract,
 * the settings route or the schema), or is listed in NOT_BUILT_SETTINGS, which the settings page
 * shows disabled and marked "not built yet". A listed field that the code has come to read must
 * leave the list. "Read" means a property access (`.field`, or destructuring) in a file that names the field's
 * singleton, so a generic name such as `enabled` is not found in unrelated code.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import {
  AgentRuntimeSettingsPatch,
  AutonomySettingsPatch,
  BrowserSettingsPatch,
  MemorySettingsPatch,
} from '../runtime/contracts/settings.ts'
import { NOT_BUILT_SETTINGS } from '../runtime/contracts/settings-not-built.ts'
import { AUTONOMY, BROWSER, type Group } from '../ui/src/settings/fields.ts'

const KINDS = {
  'agent-runtime': { fields: AgentRuntimeSettingsPatch.shape, names: /agentRuntime|AgentRuntime/ },
  memory: { fields: MemorySettingsPatch.shape, names: /memory|Memory/ },
  autonomy: { fields: AutonomySettingsPatch.shape, names: /autonomy|Autonomy/ },
  browser: { fields: BrowserSettingsPatch.shape, names: /browserSettings|Settings\.browser/ },
}

const NOT_CODE = [
  /^runtime\/contracts\/settings/,
  /^handlers\/routes\/settings\.ts$/,
  /^db\//,
  /\.test\.ts$/,
]

const sources = execFileSync('git', ['ls-files', 'compute-host', 'runtime', 'handlers', 'cli'], {
  encoding: 'utf8',
})
  .split('\n')
  .filter((path) => path.endsWith('.ts') && !NOT_CODE.some((rule) => rule.test(path)))
  .map((path) => ({ path, text: readFileSync(path, 'utf8') }))

function readers(kind: keyof typeof KINDS, field: string): string[] {
  // `x.field`, or `const { field } = …`.
  const access = new RegExp(`\\.${field}\\b|\\{[^}]*\\b${field}\\b[^}]*\\}\\s*=`)
  return sources
    .filter((s) => KINDS[kind].names.test(s.text) && access.test(s.text))
    .map((s) => s.path)
}

test('every settings field is read by the code, or listed as not built yet', () => {
  const unread: string[] = []
  const builtAfterAll: string[] = []
  for (const kind of Object.keys(KINDS) as (keyof typeof KINDS)[]) {
    for (const field of Object.keys(KINDS[kind].fields)) {
      const listed = NOT_BUILT_SETTINGS[kind]?.[field] !== undefined
      const read = readers(kind, field)
      if (!listed && read.length === 0) unread.push(`${kind}.${field}`)
      if (listed && read.length > 0) builtAfterAll.push(`${kind}.${field} (${read.join(', ')})`)
    }
  }
  assert.deepEqual(unread, [], 'settings no code reads: read them, or list them as not built')
  assert.deepEqual(builtAfterAll, [], 'listed as not built, but read: take them off the list')
})

test('the settings page marks exactly the fields that are not built yet', () => {
  const groups: Group<string>[] = [...AUTONOMY, ...BROWSER]
  const fields = groups.flatMap((group) => group.fields)
  const marked = fields
    .filter((f) => f.notBuilt !== undefined)
    .map((f) => f.key)
    .sort()
  const listed = [
    ...Object.keys(NOT_BUILT_SETTINGS.autonomy ?? {}),
    ...Object.keys(NOT_BUILT_SETTINGS.browser ?? {}),
  ].sort()
  assert.deepEqual(marked, listed)
})
