import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'node:test'
import { checkImportZones, checkSource } from '../scripts/import-zones.ts'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')

test('the project respects its import zones', async () => {
  const violations = await checkImportZones(ROOT)
  assert.deepEqual(violations, [])
})

test('the check fails on forbidden imports', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'zones-'))
  const files: Record<string, string> = {
    'handlers/routes/bad.ts': "import { startComputeHost } from '../../compute-host/main.ts'\n",
    'runtime/bad.ts': "import { readFile } from 'node:fs/promises'\n",
    'db/schema/bad.ts': "import pg from 'pg'\n",
    'compute-host/bad.ts': "import { app } from '../handlers/app.ts'\n",
    'ui/src/bad.ts': "import { app } from '../../handlers/app.ts'\n",
    'ui/src/good.ts': "import type { AppType } from '../../handlers/app.ts'\n",
    'handlers/entry.node.ts': "import { serve } from '@hono/node-server'\n",
    'runtime/env-read.ts': 'export const key = process.env.SECRET\n',
    'runtime/commented.ts':
      "// import fs from 'node:fs' is fine in a comment\nexport const url = 'http://x' // process.env in a comment\n",
  }
  try {
    for (const [file, text] of Object.entries(files)) {
      await mkdir(join(dir, dirname(file)), { recursive: true })
      await writeFile(join(dir, file), text)
    }
    const found = (await checkImportZones(dir)).map((v) => `${v.file} ${v.specifier}`).sort()
    assert.deepEqual(found, [
      'compute-host/bad.ts ../handlers/app.ts',
      'db/schema/bad.ts pg',
      'handlers/routes/bad.ts ../../compute-host/main.ts',
      'runtime/bad.ts node:fs/promises',
      'runtime/env-read.ts process.env',
      'ui/src/bad.ts ../../handlers/app.ts',
    ])
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})

test('dynamic imports and re-exports are checked too', () => {
  assert.equal(
    checkSource('runtime/x.ts', "const m = await import('node:child_process')").length,
    1,
  )
  assert.equal(checkSource('runtime/x.ts', "export { a } from '../compute-host/a.ts'").length, 1)
  assert.equal(checkSource('handlers/x.ts', "import { Cron } from 'croner'").length, 1)
  assert.equal(checkSource('handlers/x.ts', "import { Agent } from '@mastra/core/agent'").length, 1)
})

test('vendor model SDKs are refused everywhere but tests', () => {
  assert.equal(checkSource('compute-host/x.ts', "import OpenAI from 'openai'").length, 1)
  assert.equal(
    checkSource('compute-host/x.ts', "import { openai } from '@ai-sdk/openai'").length,
    1,
  )
  assert.equal(checkSource('cli/x.ts', "import A from '@anthropic-ai/sdk'").length, 1)
  const generic = "import { createOpenAICompatible } from '@ai-sdk/openai-compatible'"
  assert.equal(checkSource('compute-host/x.ts', generic).length, 0)
})

test('drizzle-orm is imported by name only in its re-exporting modules', () => {
  assert.equal(checkSource('runtime/x.ts', "import { sql } from 'drizzle-orm'").length, 1)
  assert.equal(checkSource('db/x.ts', "import { pgTable } from 'drizzle-orm/pg-core'").length, 1)
  assert.equal(checkSource('db/drizzle-orm.ts', "export * from 'drizzle-orm'").length, 0)
  assert.equal(
    checkSource('db/drizzle-pg-core.ts', "export * from 'drizzle-orm/pg-core'").length,
    0,
  )
  // Its other entry points (drivers, migrators) are imported once each already.
  assert.equal(
    checkSource('compute-host/x.ts', "import { drizzle } from 'drizzle-orm/pglite'").length,
    0,
  )
})
