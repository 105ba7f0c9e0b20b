-- A self-update patch the model reviewer approved may wait for the owner's answer too
-- (POPAGENT_SELF_UPDATE_OWNER_REVIEW_S): approvals gain that kind.
ALTER TABLE "popagent_approvals" DROP CONSTRAINT "popagent_approvals_kind";--> statement-breakpoint
ALTER TABLE "popagent_approvals" ADD CONSTRAINT "popagent_approvals_kind" CHECK ("popagent_approvals"."kind" in ('tool-call', 'self-update-patch'));
