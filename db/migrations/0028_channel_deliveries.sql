-- A task (or a schedule, for every task it queues) may name a channel binding its result is posted
-- to when it ends. Deleting the binding drops the link; the task and schedule stay.
ALTER TABLE "popagent_agent_tasks" ADD COLUMN "deliver_to_binding_id" text REFERENCES "popagent_channel_bindings"("id") ON DELETE SET NULL;--> statement-breakpoint
ALTER TABLE "popagent_agent_schedules" ADD COLUMN "deliver_to_binding_id" text REFERENCES "popagent_channel_bindings"("id") ON DELETE SET NULL;
