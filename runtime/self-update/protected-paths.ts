import { matchesAny } from './path-pattern.ts'

/**
 * Paths a self-update may never change, because a change there acts outside the reviewed diff:
 * CI and hooks run on the next push or commit, deploy files ship, lockfiles and migrations change
 * what runs without reading as code, key and env files hold secrets, and the agent instructions
 * and this policy steer the next self-update. The owner may replace this list in the autonomy
 * settings; the policy's own files stay protected whatever the list says.
 */
export const DEFAULT_PROTECTED_PATHS: readonly string[] = [
  // CI, hooks and git behaviour
  '.github/**',
  '.gitlab-ci.yml',
  '.gitlab/**',
  '.circleci/**',
  'Jenkinsfile',
  '.husky/**',
  '.gitattributes',
  '.gitmodules',
  // deploy
  'deploy/**',
  'deploy*.sh',
  'scripts/deploy*',
  'scripts/release*',
  'wrangler.toml',
  'Dockerfile*',
  'docker-compose*.yml',
  'fly.toml',
  'Procfile',
  // secrets
  '.env*',
  '*.pem',
  '*.key',
  'id_rsa*',
  'id_ed25519*',
  '.npmrc',
  // what runs without reading as code
  'package-lock.json',
  'npm-shrinkwrap.json',
  'pnpm-lock.yaml',
  'yarn.lock',
  'bun.lockb',
  'db/*migrations/**',
  // what steers agents
  'AGENTS*.md',
  '.agents/**',
]

/** Always protected: the self-update code and policy themselves. */
export const POLICY_PATHS: readonly string[] = [
  'compute-host/self-update/**',
  'runtime/self-update/**',
]

/** The matching protected pattern, or undefined when `path` may change. */
export function protectedBy(
  path: string,
  configured: readonly string[] = DEFAULT_PROTECTED_PATHS,
): string | undefined {
  return matchesAny(path, POLICY_PATHS) ?? matchesAny(path, configured)
}
