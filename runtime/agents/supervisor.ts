/** The user-facing supervisor's id, as the spec spells it. Every other agent is a specialist. */
export const SUPERVISOR_AGENT_ID = 'orchistrator'
