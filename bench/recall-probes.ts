/**
 * The recall bench's probe set, generated from a seed (never hand-picked): facts about subjects
 * of a made-up system, each with an unguessable value, told in sessions among distractor turns,
 * and one question per fact that paraphrases it — other words for the subject some of the time,
 * always another phrasing of the attribute — and never contains the value.
 */

import { seededRandom } from '../test/support/seeded-random.ts'

const SUBJECTS: Array<[string, string]> = [
  ['staging database', 'staging db'],
  ['billing service', 'billing server'],
  ['build cache', 'caching layer of the build'],
  ['search indexer', 'indexing job for search'],
  ['auth gateway', 'authentication gateway'],
  ['nightly backup', 'backups that run every night'],
  ['metrics collector', 'collector of metrics'],
  ['mobile app', 'phone application'],
  ['payment webhook', 'webhook for payments'],
  ['docs site', 'documentation website'],
  ['release pipeline', 'pipeline for releases'],
  ['feature flag store', 'store of feature flags'],
  ['image resizer', 'resizing service for images'],
  ['email worker', 'worker that sends email'],
  ['audit log', 'log of audits'],
  ['queue broker', 'message broker'],
  ['load balancer', 'balancer in front'],
  ['admin console', 'console for admins'],
  ['export job', 'job that exports'],
  ['sandbox runner', 'runner of the sandbox'],
  ['config loader', 'loader of configuration'],
  ['session store', 'store for sessions'],
  ['analytics pipeline', 'pipeline for analytics'],
  ['cdn edge', 'edge of the cdn'],
  ['ci runner', 'continuous integration runner'],
]

/** Each attribute: how a fact states it (value at `{v}`), and how a question asks for it. */
const ATTRIBUTES: Array<{ states: string[]; asks: string[]; value: (r: () => number) => string }> =
  [
    {
      states: ['listens on port {v}', 'is served on port {v}'],
      asks: ['which port is the {s} listening on', 'what port does the {s} serve from'],
      value: (r) => String(1024 + Math.floor(r() * 60000)),
    },
    {
      states: ['is owned by the {v} team', 'belongs to team {v}'],
      asks: ['which team owns the {s}', 'who is the owning team of the {s}'],
      value: (r) => token(r, 'tm'),
    },
    {
      states: ['runs in region {v}', 'is deployed to region {v}'],
      asks: ['what region is the {s} deployed in', 'where does the {s} run, which region'],
      value: (r) => token(r, 'rg'),
    },
    {
      states: ['times out after {v} seconds', 'has a timeout of {v} seconds'],
      asks: ['how many seconds until the {s} times out', 'what timeout does the {s} use'],
      value: (r) => String(5 + Math.floor(r() * 900)),
    },
    {
      states: ['is pinned to version {v}', 'uses version {v}'],
      asks: ['what version is the {s} pinned at', 'which version does the {s} run'],
      value: (r) => `${1 + Math.floor(r() * 9)}.${Math.floor(r() * 40)}.${Math.floor(r() * 20)}`,
    },
    {
      states: ['fails with error code {v}', 'reports the error {v} when it breaks'],
      asks: [
        'what error code does the {s} fail with',
        'which error does the {s} report when broken',
      ],
      value: (r) => `ERR_${token(r, 'x').toUpperCase()}`,
    },
    {
      states: ['stores its data in bucket {v}', 'keeps data in the bucket {v}'],
      asks: ['which bucket does the {s} store data in', 'where is the {s} data kept, what bucket'],
      value: (r) => token(r, 'bk'),
    },
    {
      states: ['is restarted by the script {v}', 'gets restarted with script {v}'],
      asks: ['what script restarts the {s}', 'how do we restart the {s}, which script'],
      value: (r) => `${token(r, 'ops')}.sh`,
    },
    {
      states: ['alerts the channel {v}', 'sends its alerts to channel {v}'],
      asks: ['which channel gets alerts from the {s}', 'where do the {s} alerts go'],
      value: (r) => `#${token(r, 'al')}`,
    },
    {
      states: ['was migrated by ticket {v}', 'moved over in ticket {v}'],
      asks: ['what ticket migrated the {s}', 'which ticket was the {s} migration'],
      value: (r) => `TCK-${1000 + Math.floor(r() * 9000)}`,
    },
  ]

const DISTRACTORS = [
  'Can you rename the variable in the helper?',
  'Please run the tests again.',
  'Format the file and commit.',
  'What does this stack trace mean?',
  'Summarise the diff for me.',
  'Add a comment explaining the loop.',
]

function token(r: () => number, prefix: string): string {
  let out = `${prefix}_`
  for (let i = 0; i < 6; i++) out += 'abcdefghjkmnpqrstuvwxyz23456789'[Math.floor(r() * 31)]
  return out
}

export type Probe = { factTurn: string; question: string; fact: string }
export type Turn = { sessionIndex: number; turnId: string; content: string }

/** `facts` facts over `sessions` sessions, with `distractors` extra turns in each session. */
export function generateProbes(options: {
  seed: number
  facts: number
  sessions: number
  distractors: number
}) {
  const r = seededRandom(options.seed)
  const pick = <T>(list: readonly T[]) => list[Math.floor(r() * list.length)]!
  const combos = SUBJECTS.flatMap((s, si) => ATTRIBUTES.map((_, ai) => [si, ai] as const))
  // A shuffled choice of distinct subject × attribute pairs: one fact each.
  for (let i = combos.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1))
    ;[combos[i], combos[j]] = [combos[j]!, combos[i]!]
  }
  const turns: Turn[] = []
  const probes: Probe[] = []
  combos.slice(0, options.facts).forEach(([si, ai], n) => {
    const [name, other] = SUBJECTS[si]!
    const attribute = ATTRIBUTES[ai]!
    const stated = pick(attribute.states)
    const fact = `The ${name} ${stated.replace('{v}', attribute.value(r))}.`
    const turnId = `trn_fact_${n}`
    turns.push({
      sessionIndex: n % options.sessions,
      turnId,
      content: `Question: Note for later: ${fact}\nAnswer: Noted.`,
    })
    const subject = r() < 0.5 ? other : name
    probes.push({
      factTurn: turnId,
      fact,
      question: `${pick(attribute.asks).replace('{s}', subject)}?`,
    })
  })
  for (let s = 0; s < options.sessions; s++) {
    for (let d = 0; d < options.distractors; d++) {
      turns.push({
        sessionIndex: s,
        turnId: `trn_noise_${s}_${d}`,
        content: `Question: ${pick(DISTRACTORS)}\nAnswer: Done.`,
      })
    }
  }
  return { turns, probes }
}
