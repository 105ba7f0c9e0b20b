/**
 * A generated documentation corpus with known answers, for the retrieval bench. Each document is
 * one invented component's handbook with four sections drawn from a pool of topics; every section
 * states one fact with a value unique to it. Each question is written from the topic's paraphrase
 * templates: other words than the section uses (synonyms, another order), naming the component
 * and asking for the fact, so the answer is exactly one section. Seeded: the same corpus every run.
 */

import { seededRandom } from '../test/support/seeded-random.ts'

type Topic = {
  heading: string
  /** The section's text; `{c}` is the component, `{v}` its unique value. */
  text: string
  /** Ways a user asks for it, in other words. */
  asks: string[]
}

const TOPICS: Topic[] = [
  {
    heading: 'Restarting',
    text: 'To restart {c}, drain the worker queue first, then run `svc restart {c}`. A restart takes about {v} seconds before health checks pass again.',
    asks: [
      'how long until {c} is healthy after a reboot',
      'rebooting {c}: what comes first and how many seconds',
    ],
  },
  {
    heading: 'Configuration',
    text: 'The configuration of {c} lives in `/etc/{c}/main.toml`. The setting `pool_size` defaults to {v} connections.',
    asks: [
      'what is the default connection pool of {c}',
      'where are the settings of {c} kept and the pool default',
    ],
  },
  {
    heading: 'Ownership',
    text: 'The {c} component is owned by the team called {v}. Escalations go to their on-call rotation.',
    asks: ['which team maintains {c}', 'who do I escalate {c} problems to'],
  },
  {
    heading: 'Ports',
    text: 'By default {c} listens for incoming connections on port {v} and refuses plain HTTP.',
    asks: ['what port does {c} accept traffic on', 'the listening port number of {c}'],
  },
  {
    heading: 'Backups',
    text: 'Snapshots of {c} are taken every {v} hours and kept for two weeks in cold storage.',
    asks: ['how often is {c} backed up', 'snapshot interval of {c} in hours'],
  },
  {
    heading: 'Logging',
    text: 'Logs of {c} are shipped to the index named {v}; debug output is off in production.',
    asks: ['where can I search the log lines of {c}', 'which index receives {c} logs'],
  },
  {
    heading: 'Upgrades',
    text: 'Upgrading {c} requires the migration tool version {v} or later; run it before rolling out.',
    asks: [
      'what migration tool version must be installed to upgrade {c}',
      'before rolling out a new {c}, which tool release is needed',
    ],
  },
  {
    heading: 'Rate limits',
    text: 'Clients of {c} may send at most {v} requests per minute; bursts above that are throttled.',
    asks: ['how many calls per minute does {c} allow', 'throttling threshold of {c} per minute'],
  },
]

const SYLLABLES = ['ka', 'lo', 'mi', 'ren', 'tas', 'vor', 'zu', 'pel', 'qua', 'dor', 'nix', 'bel']

export type CorpusDoc = { slug: string; title: string; body: string }
export type CorpusQuestion = { text: string; slug: string; heading: string }

export function generateDocsCorpus(documents: number, seed = 7) {
  const random = seededRandom(seed)
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!
  const used = new Set<string>()
  const docs: CorpusDoc[] = []
  const questions: CorpusQuestion[] = []
  for (let i = 0; i < documents; i++) {
    // 1,728 three-syllable names; past that (the filler) a number keeps each one unique.
    let name = ''
    for (let tries = 0; !name || used.has(name); tries++) {
      name = pick(SYLLABLES) + pick(SYLLABLES) + pick(SYLLABLES) + (tries > 20 ? String(i) : '')
    }
    used.add(name)
    const topics = [...TOPICS].sort(() => random() - 0.5).slice(0, 4)
    const sections = topics.map((t, k) => {
      const value = String(1_000 + i * 10 + k)
      const text = t.text.replaceAll('{c}', name).replaceAll('{v}', value)
      questions.push({ text: pick(t.asks).replaceAll('{c}', name), slug: name, heading: t.heading })
      return `## ${t.heading}\n\n${text}\n`
    })
    docs.push({
      slug: name,
      title: `${name} handbook`,
      body: `# ${name} handbook\n\n${sections.join('\n')}`,
    })
  }
  return { docs, questions }
}
