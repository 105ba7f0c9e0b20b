import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import type { Db } from '../../db/index.ts'
import { DEFAULT_WORKSPACE_ID } from '../../db/data-migrations/0002-register-default-workspace.ts'
import { WorkspaceNotFound } from '../../runtime/sessions/errors.ts'
import * as Workspaces from '../../runtime/workspaces/index.ts'
import type { Logger } from '../log.ts'
import { within } from './containment.ts'
import { errorMessage } from '../../runtime/error-message.ts'

const run = promisify(execFile)
const CLONE_TIMEOUT_MS = 120_000

/** popagent's own install: the folder above compute-host/. */
const INSTALL_DIR = fileURLToPath(new URL('../..', import.meta.url))

export type DefaultCheckout =
  | { state: 'present' }
  | { state: 'cloned'; from: string; ms: number }
  | { state: 'missing'; reason: string }

/**
 * Gives the default workspace a repository on first start. The seeded workspace points at
 * `popagent` under the workspace root, which nothing else creates; when popagent runs from a Git
 * checkout, that directory becomes a local clone of it (no network: git copies the objects), so
 * a new owner can chat about popagent itself straight away. From a tarball there is nothing to
 * clone, and the answer says what to do instead.
 *
 * The source is popagent's own install, not a workspace, so host git may read it; still, no
 * system or global configuration and no hooks take part, and the clone gets no submodules.
 */
export async function ensureDefaultCheckout(options: {
  db: Db
  workspaceRoot: string
  log: Logger
  installDir?: string
}): Promise<DefaultCheckout> {
  const workspace = await Workspaces.get(options.db, DEFAULT_WORKSPACE_ID).catch((error) => {
    if (error instanceof WorkspaceNotFound) return undefined
    throw error
  })
  if (!workspace) return { state: 'missing', reason: 'the default workspace was removed' }
  const target = resolve(options.workspaceRoot, workspace.path)
  if (!within(options.workspaceRoot, target) || target === options.workspaceRoot) {
    return { state: 'missing', reason: `the default workspace path ${workspace.path} is invalid` }
  }
  if (existsSync(target)) return { state: 'present' }
  const source = options.installDir ?? INSTALL_DIR
  if (!existsSync(join(source, '.git'))) {
    const reason =
      `the default workspace's directory ${target} does not exist and popagent is not running ` +
      'from a Git checkout to clone it from; register a repository: put it under ' +
      `${options.workspaceRoot} and POST /api/workspaces { "name", "path" } (or use the Workspaces page)`
    options.log.warn('default workspace has no repository', { reason })
    return { state: 'missing', reason }
  }
  const started = performance.now()
  try {
    await run(
      'git',
      [
        '-c',
        'core.hooksPath=/dev/null',
        'clone',
        '--quiet',
        '--no-hardlinks',
        '--',
        source,
        target,
      ],
      {
        timeout: CLONE_TIMEOUT_MS,
        env: {
          // A fixed environment: nothing of the host's (GIT_DIR and the like) steers the clone.
          PATH: '/usr/local/bin:/usr/bin:/bin',
          HOME: options.workspaceRoot,
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_CONFIG_GLOBAL: '/dev/null',
          GIT_TERMINAL_PROMPT: '0',
        },
      },
    )
  } catch (error) {
    // Start goes on without it: the workspace then reports itself missing, with this reason.
    const message = errorMessage(error)
    const reason = `cloning ${source} into ${target} failed (${message.slice(0, 300)}); is git installed?`
    options.log.warn('default workspace has no repository', { reason })
    return { state: 'missing', reason }
  }
  const ms = Math.round(performance.now() - started)
  options.log.info('default workspace cloned from the popagent checkout', { target, ms })
  return { state: 'cloned', from: source, ms }
}
