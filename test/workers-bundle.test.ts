/**
 * The edge must bundle for Cloudflare Workers: wrangler's dry-run builds handlers/entry.worker.ts
 * with its real bundler and fails on anything that needs Node.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'node:test'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

test('wrangler deploy --dry-run bundles the Workers entry', { timeout: 180_000 }, async () => {
  const outdir = await mkdtemp(join(tmpdir(), 'popagent-worker-'))
  try {
    const wrangler = join(ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js')
    const child = spawn(process.execPath, [wrangler, 'deploy', '--dry-run', '--outdir', outdir], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: outdir,
        WRANGLER_SEND_METRICS: 'false',
        WRANGLER_LOG_PATH: outdir,
        CI: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
    assert.equal(code, 0, output)
    const bundle = (await readdir(outdir)).find((f) => f.endsWith('.js'))
    assert.ok(bundle, `a bundle in ${outdir}: ${output}`)
    const size = (await stat(join(outdir, bundle))).size
    console.log(`Workers bundle: ${bundle}, ${Math.round(size / 1024)} KiB`)
    assert.ok(size > 10_000)
  } finally {
    await rm(outdir, { recursive: true, force: true })
  }
})
