import { endianness } from 'node:os'

/**
 * The seccomp program bubblewrap loads into every sandbox (`bwrap --seccomp FD`): it refuses to
 * give a file the set-user-ID or set-group-ID bit, and allows everything else.
 *
 * Why: the repository is bind-mounted writable, so a file the sandbox makes is a file on the
 * host, owned by popagent's user. Without this, `cp /bin/sh x && chmod 6755 x` left
 * `-rwsr-sr-x` in the workspace, and any local user who could reach it ran a shell as
 * popagent's user (root, in a container). The workspace root is also made private
 * (workspace-root.ts); this filter is the layer that does not depend on directory modes.
 *
 * What it refuses (EPERM unless noted), per syscall, looking only at integer arguments (a
 * filter cannot read memory, so path names and structs are out of reach):
 *
 * - chmod, fchmod, fchmodat, fchmodat2 with S_ISUID or S_ISGID (06000) in the mode. This also
 *   refuses `chmod g+s` on a directory. A set-group-ID directory grants nothing by itself (new
 *   files take its group, not its privileges), but the filter cannot tell a directory from a
 *   file, and no build needs one; refusing both is simpler than a hole to reason about.
 * - open and openat with O_CREAT or O_TMPFILE and 06000 in the mode, and creat with 06000: the
 *   kernel keeps S_ISUID from a create mode, so `open(p, O_CREAT, 04755)` makes a set-user-ID
 *   file without any chmod. Without O_CREAT or O_TMPFILE the mode argument is ignored by the
 *   kernel (and may hold register garbage), so such opens are never judged by it.
 * - mknod and mknodat with 06000 in the mode: mknod makes regular files too (S_IFREG).
 * - openat2 and io_uring_setup/enter/register, with ENOSYS (the answer of a kernel without
 *   them, so callers fall back to openat): openat2 passes its mode inside a struct, and io_uring
 *   opens files without a syscall this filter sees. glibc, Node and git do not need either.
 * - x32 syscalls (numbers with bit 30 set) on x86-64: the same calls under other numbers.
 * - Any other architecture's syscalls (32-bit code through the compat entry point): the process
 *   is killed, because its numbers mean other calls.
 *
 * Not filtered, and why it is safe:
 *
 * - mkdir and mkdirat: the kernel drops S_ISUID and S_ISGID from a mkdir mode.
 * - setxattr of `security.capability` (file capabilities): the name is behind a pointer, but
 *   writing it needs CAP_SETFCAP, which `--cap-drop ALL` removes; a test proves `setcap` and
 *   a raw setxattr fail in the sandbox (test/sandbox-setuid.test.ts).
 * - link and rename of an existing set-user-ID file into the repository: system directories are
 *   separate read-only mounts, and a hard link never crosses mounts (EXDEV).
 * - Writing to an existing set-user-ID file: the kernel clears the bits on write by a process
 *   without CAP_FSETID.
 */
export function seccompProgram(arch: string = process.arch): Buffer {
  const table = SYSCALLS[arch as keyof typeof SYSCALLS]
  if (!table) {
    throw new Error(
      `the sandbox's seccomp filter knows the syscalls of x64 and arm64 only, not ${arch}; refusing to run commands without it`,
    )
  }
  // seccomp_data and sock_filter are read in native byte order; both supported CPUs run
  // little-endian Linux, and the argument offsets below assume it.
  if (endianness() !== 'LE') throw new Error('the seccomp filter assumes a little-endian CPU')
  return assemble(program(table))
}

// seccomp_data: int nr at 0, u32 arch at 4, u64 instruction_pointer at 8, u64 args[6] at 16.
// The low 32 bits of args[i] are at 16 + 8 * i on little-endian; modes and open flags are
// 32-bit, so their high halves are never looked at.
const NR = 0
const ARCH = 4
const argLow = (i: number) => 16 + 8 * i

const SET_ID_BITS = 0o6000
// O_CREAT, and the bit of O_TMPFILE that is not O_DIRECTORY (same values on x64 and arm64).
const CREATES = 0o100 | 0o20000000
const X32_BIT = 0x40000000

const RET_ALLOW = 0x7fff0000
const RET_KILL_PROCESS = 0x80000000
const RET_ERRNO = 0x00050000
const EPERM = 1
const ENOSYS = 38

/** Which argument of a syscall is its mode, and (for the open family) its flags. */
type ModeCheck = { nr: number; mode: number; flags?: number }

type SyscallTable = {
  audit: number
  checks: ModeCheck[]
  unavailable: number[]
  x32: boolean
}

// Numbers from the kernel's arch/x86/entry/syscalls/syscall_64.tbl and the generic table arm64
// uses (include/uapi/asm-generic/unistd.h), which has no chmod, creat, open or mknod.
const SYSCALLS = {
  x64: {
    audit: 0xc000003e, // AUDIT_ARCH_X86_64
    checks: [
      { nr: 90, mode: 1 }, // chmod(path, mode)
      { nr: 91, mode: 1 }, // fchmod(fd, mode)
      { nr: 268, mode: 2 }, // fchmodat(dirfd, path, mode)
      { nr: 452, mode: 2 }, // fchmodat2(dirfd, path, mode, flags)
      { nr: 85, mode: 1 }, // creat(path, mode)
      { nr: 2, flags: 1, mode: 2 }, // open(path, flags, mode)
      { nr: 257, flags: 2, mode: 3 }, // openat(dirfd, path, flags, mode)
      { nr: 133, mode: 1 }, // mknod(path, mode, dev)
      { nr: 259, mode: 2 }, // mknodat(dirfd, path, mode, dev)
    ],
    unavailable: [437, 425, 426, 427], // openat2, io_uring_setup, io_uring_enter, io_uring_register
    x32: true,
  },
  arm64: {
    audit: 0xc00000b7, // AUDIT_ARCH_AARCH64
    checks: [
      { nr: 52, mode: 1 }, // fchmod(fd, mode)
      { nr: 53, mode: 2 }, // fchmodat(dirfd, path, mode)
      { nr: 452, mode: 2 }, // fchmodat2(dirfd, path, mode, flags)
      { nr: 56, flags: 2, mode: 3 }, // openat(dirfd, path, flags, mode)
      { nr: 33, mode: 2 }, // mknodat(dirfd, path, mode, dev)
    ],
    unavailable: [437, 425, 426, 427],
    x32: false,
  },
} satisfies Record<string, SyscallTable>

// Classic BPF, as the kernel's linux/filter.h spells it.
const LD_W_ABS = 0x20 // A = 32-bit word at offset k of seccomp_data
const JEQ_K = 0x15 // jump jt if A == k, else jf
const JSET_K = 0x45 // jump jt if A & k, else jf
const RET_K = 0x06 // return k

/** An instruction whose jump targets are labels, resolved by `assemble`. */
type Op =
  { label: string } | { code: number; k: number; jt?: string; jf?: string } | { ret: number }

/**
 * Arch check, x32 check, then one comparison per filtered syscall that jumps to the check of
 * its mode; every path ends in a return, and anything not listed is allowed.
 */
function program(table: SyscallTable): Op[] {
  const ops: Op[] = [
    { code: LD_W_ABS, k: ARCH },
    { code: JEQ_K, k: table.audit, jf: 'kill' },
    { code: LD_W_ABS, k: NR },
  ]
  if (table.x32) ops.push({ code: JSET_K, k: X32_BIT, jt: 'eperm' })
  table.checks.forEach((check, i) => ops.push({ code: JEQ_K, k: check.nr, jt: `check${i}` }))
  for (const nr of table.unavailable) ops.push({ code: JEQ_K, k: nr, jt: 'enosys' })
  ops.push({ ret: RET_ALLOW })
  table.checks.forEach((check, i) => {
    ops.push({ label: `check${i}` })
    if (check.flags !== undefined) {
      // Not creating: the mode is not used, whatever it holds.
      ops.push({ code: LD_W_ABS, k: argLow(check.flags) })
      ops.push({ code: JSET_K, k: CREATES, jf: 'allow' })
    }
    ops.push({ code: LD_W_ABS, k: argLow(check.mode) })
    ops.push({ code: JSET_K, k: SET_ID_BITS, jt: 'eperm', jf: 'allow' })
  })
  ops.push({ label: 'allow' }, { ret: RET_ALLOW })
  ops.push({ label: 'eperm' }, { ret: RET_ERRNO | EPERM })
  ops.push({ label: 'enosys' }, { ret: RET_ERRNO | ENOSYS })
  ops.push({ label: 'kill' }, { ret: RET_KILL_PROCESS })
  return ops
}

/**
 * struct sock_filter { u16 code; u8 jt; u8 jf; u32 k }, 8 bytes each. A jump is relative to the
 * next instruction and only forward; a missing target means "fall through" (0).
 */
function assemble(ops: Op[]): Buffer {
  // A label names the index of the instruction after it.
  const at = new Map<string, number>()
  const instructions: Exclude<Op, { label: string }>[] = []
  for (const op of ops) {
    if ('label' in op) at.set(op.label, instructions.length)
    else instructions.push(op)
  }
  const out = Buffer.alloc(instructions.length * 8)
  instructions.forEach((op, i) => {
    const offset = (label: string | undefined) => {
      if (label === undefined) return 0
      const target = at.get(label)
      const jump = target === undefined ? -1 : target - (i + 1)
      if (jump < 0 || jump > 255) throw new Error(`seccomp: bad jump to ${label}`)
      return jump
    }
    const [code, k, jt, jf] =
      'ret' in op ? [RET_K, op.ret, 0, 0] : [op.code, op.k, offset(op.jt), offset(op.jf)]
    out.writeUInt16LE(code, i * 8)
    out.writeUInt8(jt, i * 8 + 2)
    out.writeUInt8(jf, i * 8 + 3)
    out.writeUInt32LE(k >>> 0, i * 8 + 4)
  })
  return out
}
