-- A streamed answer's final first chunk is an edit of the message already sent (issue 38):
-- edit_of holds the service's id of that message; null for an ordinary new message.
ALTER TABLE "popagent_channel_outbox" ADD COLUMN "edit_of" text;
