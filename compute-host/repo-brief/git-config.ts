export type GitConfig = {
  /** `core.autocrlf`: whether files without a `text` attribute are normalised when hashed. */
  autocrlf: 'true' | 'false' | 'input'
  /** `core.filemode`: whether the executable bit counts as a change. */
  filemode: boolean
  /** `extensions.objectFormat`: the object ids' hash. */
  objectFormat: 'sha1' | 'sha256'
}

/**
 * The few settings of a repository's `.git/config` that change what `git status` would report,
 * read as data. Everything else there (fsmonitor, hooks, filters, includes) is about running
 * programs, and the brief's reader runs none, so it is not even parsed. Global and system
 * configuration are not read: the sandboxed git this replaces did not see them either.
 */
export function parseGitConfig(text: string): GitConfig {
  const config: GitConfig = { autocrlf: 'false', filemode: true, objectFormat: 'sha1' }
  for (const [key, value] of gitConfigEntries(text)) {
    if (key === 'core.autocrlf') {
      const lower = value.toLowerCase()
      config.autocrlf = lower === 'input' ? 'input' : truthy(lower) ? 'true' : 'false'
    } else if (key === 'core.filemode') config.filemode = truthy(value.toLowerCase())
    else if (key === 'extensions.objectformat') {
      config.objectFormat = value.toLowerCase() === 'sha256' ? 'sha256' : 'sha1'
    }
  }
  return config
}

/**
 * A git config file's settings in file order, as `section.key` (both lower-cased) and the value
 * without quotes or comment; a key with no `=` is `true`. Settings of a subsection (`[remote
 * "origin"]`) come as `section".key`, so they never pass for the section's own. Also read by
 * the file tools for `core.hooksPath` (workspaces/exec-trigger-guard.ts).
 */
export function* gitConfigEntries(text: string): Generator<[key: string, value: string]> {
  let section = ''
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"(?:[^"\\]|\\.)*")?\s*\]/.exec(line)
    if (header) {
      // A subsection (`[remote "origin"]`) is never one of ours: keep it apart from its section.
      section = line.includes('"') ? `${header[1]!.toLowerCase()}"` : header[1]!.toLowerCase()
      continue
    }
    const setting = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line)
    if (!setting) continue
    yield [
      `${section}.${setting[1]!.toLowerCase()}`,
      setting[2] === undefined ? 'true' : unquote(setting[2]),
    ]
  }
}

const truthy = (value: string) => ['true', 'yes', 'on', '1'].includes(value)

/** A value without its comment and quotes (`"a b" # c` is `a b`). */
function unquote(value: string): string {
  let out = ''
  let quoted = false
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!
    if (c === '"') quoted = !quoted
    else if (c === '\\' && i + 1 < value.length) out += value[++i]
    else if (!quoted && (c === '#' || c === ';')) break
    else out += c
  }
  return out.trim()
}
