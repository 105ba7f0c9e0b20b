/**
 * Loaded into every test process (`--import`, test/run.ts) before anything else: the CLI's resolve
 * hook for relative imports between a package's ES modules (cli/package-module-resolve.ts), so a
 * test file's import of the host skips Node 22's package.json parse per drizzle-orm module as
 * `popagent start` does. Measured on this machine: the host's module graph 1.8 → 1.25 s of CPU a
 * process, about 230 processes a run.
 */
import { registerPackageModuleResolve } from '../../cli/package-module-resolve.ts'

registerPackageModuleResolve()
