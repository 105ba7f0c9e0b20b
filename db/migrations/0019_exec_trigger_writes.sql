-- The owner's per-workspace choice to let agents' file tools write files that run code later
-- (.gitattributes, the hooks folder, .envrc …); off for every workspace until the owner turns it
-- on. A run reads it with the workspace row, whose table already moves the configuration
-- version (0017), so a change applies on the next run without a trigger here.
ALTER TABLE "popagent_agent_workspaces" ADD COLUMN "allow_exec_trigger_writes" boolean DEFAULT false NOT NULL;
