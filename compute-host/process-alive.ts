/**
 * Whether a process with this pid exists now. Signal 0 checks without sending anything; EPERM
 * means it exists but belongs to another user, which still counts as alive (its pid is taken).
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
