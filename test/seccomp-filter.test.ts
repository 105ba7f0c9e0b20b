/**
 * The seccomp program's decisions, read from its bytes by a small classic-BPF evaluator: the
 * arm64 program cannot be run on this machine, and the x64 one is also run by the kernel in
 * test/sandbox-setuid.test.ts. An architecture without a syscall table builds no program, so
 * the start-up self-test fails and no shell is offered there.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { seccompProgram } from '../compute-host/workspaces/seccomp-filter.ts'

const ALLOW = 'allow'
const EPERM = 'EPERM'
const ENOSYS = 'ENOSYS'
const KILL = 'kill'

/** Runs the program on one seccomp_data (nr, arch, the low halves of args) and names the result. */
function decide(program: Buffer, arch: number, nr: number, args: number[] = []): string {
  const data = Buffer.alloc(64)
  data.writeInt32LE(nr, 0)
  data.writeUInt32LE(arch, 4)
  args.forEach((arg, i) => data.writeUInt32LE(arg >>> 0, 16 + 8 * i))
  let a = 0
  for (let pc = 0; pc < program.length / 8;) {
    const code = program.readUInt16LE(pc * 8)
    const jt = program.readUInt8(pc * 8 + 2)
    const jf = program.readUInt8(pc * 8 + 3)
    const k = program.readUInt32LE(pc * 8 + 4)
    pc++
    if (code === 0x20) a = data.readUInt32LE(k)
    else if (code === 0x15) pc += a === k ? jt : jf
    else if (code === 0x45) pc += (a & k) !== 0 ? jt : jf
    else if (code === 0x06) {
      if (k === 0x7fff0000) return ALLOW
      if (k === 0x80000000) return KILL
      if (k === 0x00050001) return EPERM
      if (k === 0x00050026) return ENOSYS
      return `ret ${k.toString(16)}`
    } else throw new Error(`unknown BPF instruction ${code.toString(16)}`)
  }
  throw new Error('the program ran off its end')
}

const O_CREAT = 0o100
const O_TMPFILE = 0o20200000

test('x64: set-ID modes are refused on every path that sets a mode, nothing else', () => {
  const bpf = seccompProgram('x64')
  const x64 = 0xc000003e
  const d = (nr: number, ...args: number[]) => decide(bpf, x64, nr, args)
  assert.deepEqual(
    {
      chmod: d(90, 0, 0o4755),
      chmodSgid: d(90, 0, 0o2755),
      chmodPlain: d(90, 0, 0o755),
      fchmod: d(91, 3, 0o6755),
      fchmodat: d(268, -100, 0, 0o4755),
      fchmodat2: d(452, -100, 0, 0o4755, 0),
      creat: d(85, 0, 0o4755),
      open: d(2, 0, O_CREAT | 1, 0o4755),
      openTmpfile: d(2, 0, O_TMPFILE | 2, 0o4755),
      openPlainMode: d(2, 0, O_CREAT | 1, 0o644),
      openNoCreateGarbageMode: d(2, 0, 0, 0o4755),
      openat: d(257, -100, 0, O_CREAT | 1, 0o2755),
      openatNoCreate: d(257, -100, 0, 0, 0o6755),
      mknod: d(133, 0, 0o104755, 0),
      mknodat: d(259, -100, 0, 0o104755, 0),
      mkdir: d(83, 0, 0o6755),
      openat2: d(437),
      ioUring: d(425),
      x32Chmod: d(0x40000000 | 90, 0, 0o755),
      read: d(0),
      i386: decide(bpf, 0x40000003, 15, [0, 0o4755]),
    },
    {
      chmod: EPERM,
      chmodSgid: EPERM,
      chmodPlain: ALLOW,
      fchmod: EPERM,
      fchmodat: EPERM,
      fchmodat2: EPERM,
      creat: EPERM,
      open: EPERM,
      openTmpfile: EPERM,
      openPlainMode: ALLOW,
      openNoCreateGarbageMode: ALLOW,
      openat: EPERM,
      openatNoCreate: ALLOW,
      mknod: EPERM,
      mknodat: EPERM,
      mkdir: ALLOW,
      openat2: ENOSYS,
      ioUring: ENOSYS,
      x32Chmod: EPERM,
      read: ALLOW,
      i386: KILL,
    },
  )
})

test('arm64: the same rules under the generic syscall numbers', () => {
  const bpf = seccompProgram('arm64')
  const arm64 = 0xc00000b7
  const d = (nr: number, ...args: number[]) => decide(bpf, arm64, nr, args)
  assert.deepEqual(
    {
      fchmod: d(52, 3, 0o4755),
      fchmodat: d(53, -100, 0, 0o2755),
      fchmodatPlain: d(53, -100, 0, 0o755),
      fchmodat2: d(452, -100, 0, 0o4755, 0),
      openat: d(56, -100, 0, O_CREAT | 1, 0o4755),
      openatNoCreate: d(56, -100, 0, 0, 0o4755),
      mknodat: d(33, -100, 0, 0o104755, 0),
      openat2: d(437),
      ioUring: d(425),
      // 90 is a different call on arm64 (capget): not judged by x64's numbers.
      number90: d(90, 0, 0o4755),
      arm32: decide(bpf, 0x40000028, 15, [0, 0o4755]),
    },
    {
      fchmod: EPERM,
      fchmodat: EPERM,
      fchmodatPlain: ALLOW,
      fchmodat2: EPERM,
      openat: EPERM,
      openatNoCreate: ALLOW,
      mknodat: EPERM,
      openat2: ENOSYS,
      ioUring: ENOSYS,
      number90: ALLOW,
      arm32: KILL,
    },
  )
})

test('an architecture without a syscall table gets no filter, and says so', () => {
  assert.throws(() => seccompProgram('riscv64'), /x64 and arm64 only, not riscv64/)
})
