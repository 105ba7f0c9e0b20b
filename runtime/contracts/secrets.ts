import { z } from 'zod'
import { HookId, SecretId } from '../ids.ts'
import { isStorable, UNSTORABLE_MESSAGE } from './storable-text.ts'

/**
 * The secrets vault as the API shows and takes it. Values go in and never come out: a secret is
 * shown by its name, version, key id, keyed fingerprint and bindings only.
 */
export const MIN_SECRET_BYTES = 12
export const MAX_SECRET_BYTES = 8_192
export const MAX_ORIGINS = 20

const bytes = (v: string) => new TextEncoder().encode(v).length

/** Env-variable shaped, so the same name can be given to a hook's environment. */
export const SecretName = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]{0,63}$/,
    'letters, digits and _, not starting with a digit, at most 64',
  )

// The messages never quote the value: a refused value must not come back in the error.
export const SecretValue = z
  .string()
  .refine(
    (v) => bytes(v) >= MIN_SECRET_BYTES,
    `at least ${MIN_SECRET_BYTES} bytes: shorter values cannot be redacted safely`,
  )
  .refine((v) => bytes(v) <= MAX_SECRET_BYTES, `at most ${MAX_SECRET_BYTES} bytes`)
  .refine(isStorable, UNSTORABLE_MESSAGE)

export const CreateSecretInput = z.strictObject({ name: SecretName, value: SecretValue })
export type CreateSecretInput = z.infer<typeof CreateSecretInput>

export const RotateSecretInput = z.strictObject({ value: SecretValue })

// Names the sandbox sets itself, or that change how programs load or start, are never taken from
// the vault. A hook's environment is also the environment of the host-side programs that build its
// sandbox (the start's shell, prlimit, bubblewrap), so the list covers what glibc drops for setuid
// programs (its "unsecure" variables: loader, tunables, locale and resolver paths), what a shell
// runs or reparses on start (ENV, BASH_ENV, IFS, exported functions) and the language runtimes'
// preload switches.
const RESERVED_ENV = new RegExp(
  '^(' +
    [
      'PATH|HOME|LANG|PWD|SHELL|TMPDIR',
      'LD_.*|GLIBC_TUNABLES|GCONV_PATH|GETCONF_DIR|HOSTALIASES|LOCALDOMAIN|LOCPATH|MALLOC_.*',
      'NIS_PATH|NLSPATH|RESOLV_HOST_CONF|RES_OPTIONS|TZDIR',
      'ENV|BASH_ENV|BASHOPTS|SHELLOPTS|IFS|PS4|CDPATH|PROMPT_COMMAND|BASH_FUNC_.*',
      'NODE_OPTIONS|NODE_PATH|PYTHONSTARTUP|PYTHONPATH|PERL5OPT|PERL5LIB|RUBYOPT|JAVA_TOOL_OPTIONS',
    ].join('|') +
    ')$',
)

/**
 * An environment variable that may take a vault value (a command hook's, a stdio MCP server's):
 * never one of the names above.
 */
export const SecretEnvName = z
  .string()
  .regex(/^[A-Z_][A-Z0-9_]{0,63}$/, 'upper-case letters, digits and _, at most 64')
  .refine((n) => !RESERVED_ENV.test(n), 'a name the sandbox sets itself')

/** A command hook's environment variable that gets the value. */
export const HookEnvBinding = z.strictObject({ hookId: HookId, envName: SecretEnvName })

/**
 * The places the value may go: HTTPS origins, and command hooks' environments. Each list given
 * replaces the previous one; `hookEnv` left out keeps the hook bindings as they are.
 */
export const SecretBindingsInput = z.strictObject({
  origins: z.array(z.string().min(1).max(2_048)).max(MAX_ORIGINS),
  hookEnv: z.array(HookEnvBinding).max(MAX_ORIGINS).optional(),
})
export type SecretBindingsInput = z.infer<typeof SecretBindingsInput>

export const SecretParams = z.strictObject({ id: SecretId })

export const SecretView = z.object({
  id: z.string(),
  name: z.string(),
  version: z.number(),
  /** Which vault key encrypted it (a rotation re-encrypts rows under the new one). */
  keyId: z.string(),
  /** A keyed MAC of the value: equal for equal values, meaningless without the vault key. */
  fingerprint: z.string(),
  /** HTTPS origins (scheme, host, port) the value may be sent to. */
  origins: z.array(z.string()),
  /** Command hooks whose environment gets the value, and under which name. */
  hookEnv: z.array(z.object({ hookId: z.string(), envName: z.string() })),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type SecretView = z.infer<typeof SecretView>
