import { PatchLimitExceeded, PatchPolicyRefused } from './errors.ts'
import { protectedBy } from './protected-paths.ts'

/** One file of a staged change, as `git diff --raw` and `--numstat` describe it. */
export type ChangedFile = {
  path: string
  status: 'A' | 'M' | 'D' | 'T'
  oldMode: string
  newMode: string
  /** null for a binary file (numstat's `-`). */
  added: number | null
  deleted: number | null
}

export const PATCH_LIMITS = { files: 20, changedLines: 800, patchBytes: 120_000 } as const

const SYMLINK = '120000'
const GITLINK = '160000'
const EXECUTABLE = '100755'
const TEST_FILE = /(^|\/)(test|tests|__tests__|spec)\/|\.(test|spec)\.[cm]?[jt]sx?$/i
const PACKAGE_FIELDS = [
  'scripts',
  'dependencies',
  'devDependencies',
  'optionalDependencies',
  'peerDependencies',
  'bin',
  'exports',
  'overrides',
] as const

/**
 * What inspect-change checks before anything runs or anyone reviews: the change is small enough to
 * read whole, contains only regular text files, keeps every mode, leaves protected paths, tests
 * and package wiring alone and focuses no test. Each refusal names the file and the rule.
 */
export function checkPatch(input: {
  files: readonly ChangedFile[]
  patch: string
  patchBytes: number
  protectedPaths?: readonly string[]
  /** package.json before and after, when the change touches it. */
  packageJson?: { before: string; after: string }
}): void {
  const { files } = input
  if (files.length === 0) refuse('the change is empty', {})
  const lines = files.reduce((sum, f) => sum + (f.added ?? 0) + (f.deleted ?? 0), 0)
  if (files.length > PATCH_LIMITS.files) limit('files', files.length, PATCH_LIMITS.files)
  if (lines > PATCH_LIMITS.changedLines) limit('changedLines', lines, PATCH_LIMITS.changedLines)
  if (input.patchBytes > PATCH_LIMITS.patchBytes) {
    limit('patchBytes', input.patchBytes, PATCH_LIMITS.patchBytes)
  }
  for (const file of files) checkFile(file, input.protectedPaths)
  const focused = addedLines(input.patch).find((line) => /\.only\s*\(/.test(line))
  if (focused !== undefined) refuse('the change focuses a test with .only(', { line: focused })
  if (input.packageJson) checkPackageJson(input.packageJson.before, input.packageJson.after)
}

function checkFile(file: ChangedFile, protectedPaths: readonly string[] | undefined): void {
  const { path } = file
  const rule = protectedBy(path, protectedPaths)
  if (rule !== undefined) refuse(`${path} is protected (${rule})`, { path, rule })
  if (file.added === null || file.deleted === null) refuse(`${path} is binary`, { path })
  for (const mode of [file.oldMode, file.newMode]) {
    if (mode === SYMLINK) refuse(`${path} is a symbolic link`, { path, mode })
    if (mode === GITLINK) refuse(`${path} is a submodule`, { path, mode })
  }
  const executable = (mode: string) => mode === EXECUTABLE
  const modeChanged =
    file.status === 'A'
      ? executable(file.newMode)
      : file.status !== 'D' && file.oldMode !== file.newMode
  if (modeChanged)
    refuse(`${path} changes its mode`, { path, from: file.oldMode, to: file.newMode })
  if (file.status === 'D' && TEST_FILE.test(path))
    refuse(`${path} is a test; deleting it`, { path })
}

function checkPackageJson(before: string, after: string): void {
  const read = (text: string): Record<string, unknown> => {
    try {
      const value: unknown = JSON.parse(text)
      return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}
    } catch {
      return refuse('package.json is not valid JSON after the change', { path: 'package.json' })
    }
  }
  const [old, next] = [read(before), read(after)]
  for (const field of PACKAGE_FIELDS) {
    if (JSON.stringify(old[field]) !== JSON.stringify(next[field])) {
      refuse(`package.json ${field} changed`, { path: 'package.json', field })
    }
  }
}

function addedLines(patch: string): string[] {
  return patch.split('\n').filter((line) => line.startsWith('+') && !line.startsWith('+++ '))
}

function refuse(message: string, data: Record<string, unknown>): never {
  throw new PatchPolicyRefused(data, { message: `self-update refused the change: ${message}` })
}

function limit(what: string, actual: number, max: number): never {
  throw new PatchLimitExceeded(
    { limit: what, actual, max },
    { message: `self-update refused the change: ${what} ${actual} exceeds ${max}` },
  )
}
