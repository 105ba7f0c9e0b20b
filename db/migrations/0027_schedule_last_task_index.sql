-- A schedule's last task is read with a lateral subquery over tasks by schedule_id, newest first,
-- for every schedule in the list; without an index that was a scan of all tasks per schedule.
CREATE INDEX "popagent_agent_tasks_schedule_idx" ON "popagent_agent_tasks" USING btree ("schedule_id","created_at","id") WHERE "popagent_agent_tasks"."schedule_id" is not null;
