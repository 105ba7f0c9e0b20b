-- New queued work wakes the runners from the inserting statement itself: one statement and one
-- commit per enqueue instead of an INSERT followed by a separate NOTIFY, and no producer (a bulk
-- insert, a schedule, another tool) can forget it. NOTIFY is delivered on commit and collapses
-- duplicates within a transaction, so a bulk insert sends one wake-up.
CREATE FUNCTION popagent_task_wake() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('popagent_task_wake', '');
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER popagent_agent_tasks_wake AFTER INSERT ON popagent_agent_tasks
  FOR EACH STATEMENT EXECUTE FUNCTION popagent_task_wake();
