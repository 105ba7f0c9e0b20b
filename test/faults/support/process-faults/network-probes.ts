/**
 * Shell probes that try to reach the counting loopback listeners by every means a command line
 * has: bash's /dev/tcp and /dev/udp, curl, wget, nc, socat, python sockets (TCP, UDP, a DNS query,
 * a unix socket), plus the views of the network a process has (interfaces, the unix socket's
 * path). Each prints one word or a short list. Loopback addresses only, by construction: every
 * target below is 127.0.0.1, ::1 or the listeners' own unix path.
 */
import type { Listeners } from './loopback-listeners.ts'

export type Probe = { name: string; script: string }

const needs = (tool: string, script: string) =>
  `command -v ${tool} >/dev/null 2>&1 || { echo MISSING; exit 0; }; ${script}`
const outcome = (attempt: string) => `(${attempt}) >/dev/null 2>&1 && echo REACHED || echo BLOCKED`
// A datagram "sent" only left the sender (inside the sandbox, onto its own lo); whether it
// arrived is what the listeners count.
const sent = (attempt: string) => `(${attempt}) >/dev/null 2>&1 && echo SENT || echo NOT-SENT`

// A standard DNS query for `popagent-probe.invalid`, type A, sent to a loopback port only.
const DNS_QUERY =
  "b'\\x12\\x34\\x01\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x0epopagent-probe\\x07invalid\\x00\\x00\\x01\\x00\\x01'"

export function networkProbes(l: Listeners): Probe[] {
  const probes: Probe[] = [
    { name: 'bash-tcp4', script: outcome(`bash -c 'exec 3<>/dev/tcp/127.0.0.1/${l.tcp4}'`) },
    {
      name: 'bash-udp4',
      script: sent(`bash -c 'echo probe >/dev/udp/127.0.0.1/${l.udp4}'`),
    },
    {
      name: 'curl-tcp4',
      script: needs('curl', outcome(`curl -sf --max-time 3 http://127.0.0.1:${l.tcp4}/`)),
    },
    {
      name: 'wget-tcp4',
      script: needs('wget', outcome(`wget -q -T 3 -t 1 -O - http://127.0.0.1:${l.tcp4}/`)),
    },
    { name: 'nc-tcp4', script: needs('nc', outcome(`nc -z -w 2 127.0.0.1 ${l.tcp4}`)) },
    {
      name: 'socat-tcp4',
      script: needs('socat', outcome(`echo probe | socat -T 2 - TCP4:127.0.0.1:${l.tcp4}`)),
    },
    {
      name: 'socat-udp4',
      script: needs('socat', sent(`echo probe | socat -T 1 - UDP4:127.0.0.1:${l.udp4}`)),
    },
    {
      name: 'socat-unix',
      script: needs('socat', outcome(`echo probe | socat -T 2 - UNIX-CONNECT:${l.unixPath}`)),
    },
    {
      name: 'python-tcp4',
      script: needs(
        'python3',
        outcome(
          `python3 -c "import socket; socket.create_connection(('127.0.0.1', ${l.tcp4}), 3)"`,
        ),
      ),
    },
    {
      name: 'python-dns-udp4',
      script: needs(
        'python3',
        sent(
          `python3 -c "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(${DNS_QUERY}, ('127.0.0.1', ${l.udp4}))"`,
        ),
      ),
    },
    {
      name: 'python-unix',
      script: needs(
        'python3',
        outcome(
          `python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.connect('${l.unixPath}')"`,
        ),
      ),
    },
    // The name service as the sandbox's libc sees it (/etc/hosts; no resolver is asked).
    { name: 'getent-localhost', script: needs('getent', 'getent hosts localhost || echo NONE') },
    { name: 'unix-path-visible', script: `test -e '${l.unixPath}' && echo VISIBLE || echo ABSENT` },
    {
      name: 'interfaces-proc',
      script: `tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\\n' ' '`,
    },
    {
      name: 'interfaces-ip',
      script: needs('ip', `ip -o link show | cut -d: -f2 | tr -d ' ' | tr '\\n' ' '`),
    },
  ]
  if (l.tcp6) {
    probes.push(
      { name: 'bash-tcp6', script: outcome(`bash -c 'exec 3<>/dev/tcp/::1/${l.tcp6}'`) },
      {
        name: 'curl-tcp6',
        script: needs('curl', outcome(`curl -sf --max-time 3 'http://[::1]:${l.tcp6}/'`)),
      },
    )
  }
  if (l.udp6) {
    probes.push({
      name: 'bash-udp6',
      script: sent(`bash -c 'echo probe >/dev/udp/::1/${l.udp6}'`),
    })
  }
  return probes
}

/** The interface names a probe listed (`interfaces-*` probes print them space-separated). */
export const interfacesOf = (output: string) => output.trim().split(/\s+/).filter(Boolean).sort()
