-- A finished task's channel delivery must survive a host killed between saving the task's end and
-- queueing its post. The marker is set by the database in the statement that writes the end (every
-- path that ends a task: the runner, a batch completion, a cancel, recovery), so it commits with
-- that end or not at all; queueing the post clears it in the transaction that writes the outbox
-- rows (compute-host/channels/task-deliveries.ts), and a sweep queues any left set.
ALTER TABLE "popagent_agent_tasks" ADD COLUMN "delivery_pending" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "popagent_agent_tasks_delivery_pending_idx" ON "popagent_agent_tasks" USING btree ("finished_at") WHERE "popagent_agent_tasks"."delivery_pending";--> statement-breakpoint
CREATE FUNCTION popagent_task_delivery_pending() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.delivery_pending := true;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER popagent_agent_tasks_delivery_pending BEFORE UPDATE OF state ON popagent_agent_tasks
  FOR EACH ROW
  WHEN (NEW.deliver_to_binding_id IS NOT NULL
    AND OLD.state IN ('queued', 'running', 'cancelling')
    AND NEW.state IN ('completed', 'failed', 'cancelled', 'dead-letter'))
  EXECUTE FUNCTION popagent_task_delivery_pending();
