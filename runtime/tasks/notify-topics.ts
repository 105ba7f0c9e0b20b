/**
 * LISTEN/NOTIFY topics of the task queue (PostgreSQL calls them channels; the name is kept free
 * for chat channels, the feature). A NOTIFY sent inside a transaction is delivered only
 * when it commits, so a wake-up never announces a row a runner cannot see yet.
 */
/** Sent by the insert trigger of migration 0006 (which names it literally). */
export const TASK_WAKE_CHANNEL = 'popagent_task_wake'
/** Payload: the task id whose cancellation was requested while it ran. */
export const TASK_CANCEL_CHANNEL = 'popagent_task_cancel'
