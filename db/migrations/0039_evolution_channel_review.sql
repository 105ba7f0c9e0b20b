-- Evolution review on a channel: the owner names a conversation (a channel binding) on which
-- held proposals are also asked, and such a question is an approval of its own kind, linked to
-- its proposal (one approval per proposal; deleting the proposal deletes its question).
ALTER TABLE "popagent_evolution_defaults" ADD COLUMN "review_binding_id" text;--> statement-breakpoint
ALTER TABLE "popagent_evolution_defaults" ADD CONSTRAINT "popagent_evolution_defaults_review_binding_id_popagent_channel_bindings_id_fk" FOREIGN KEY ("review_binding_id") REFERENCES "public"."popagent_channel_bindings"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "popagent_approvals" ADD COLUMN "proposal_id" text;--> statement-breakpoint
ALTER TABLE "popagent_approvals" ADD CONSTRAINT "popagent_approvals_proposal_id_popagent_evolution_proposals_id_fk" FOREIGN KEY ("proposal_id") REFERENCES "public"."popagent_evolution_proposals"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "popagent_approvals_proposal" ON "popagent_approvals" USING btree ("proposal_id") WHERE "popagent_approvals"."proposal_id" is not null;--> statement-breakpoint
ALTER TABLE "popagent_approvals" DROP CONSTRAINT "popagent_approvals_kind";--> statement-breakpoint
ALTER TABLE "popagent_approvals" ADD CONSTRAINT "popagent_approvals_kind" CHECK ("popagent_approvals"."kind" in ('tool-call', 'self-update-patch', 'evolution-proposal'));
