-- A task's or schedule's owner and repository are fixed at creation: retry, recovery, resolution
-- and schedule edits can never change provenance or the repository boundary.
CREATE FUNCTION popagent_refuse_provenance_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.source IS DISTINCT FROM OLD.source OR NEW.workspace_id IS DISTINCT FROM OLD.workspace_id THEN
    RAISE EXCEPTION 'source and workspace_id of % are immutable', TG_TABLE_NAME
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER popagent_agent_tasks_provenance BEFORE UPDATE ON popagent_agent_tasks
  FOR EACH ROW EXECUTE FUNCTION popagent_refuse_provenance_change();
--> statement-breakpoint
CREATE TRIGGER popagent_agent_schedules_provenance BEFORE UPDATE ON popagent_agent_schedules
  FOR EACH ROW EXECUTE FUNCTION popagent_refuse_provenance_change();
