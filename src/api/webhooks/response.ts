// The response schemas of the webhook routes (D27): published in the OpenAPI document and checked with VALIDATE_RESPONSES.
import Type from 'typebox';
import { closedObject, component, deletedSchema, wpDateTime } from '../../http/schemas.ts';

const subscriptionProperties = {
  id: Type.Integer({ minimum: 1, description: 'The subscription id.' }),
  url: Type.String({ format: 'uri', description: 'Where deliveries are POSTed (http or https).' }),
  events: Type.Array(Type.String(), {
    minItems: 1,
    description: 'The event types delivered (`event.updated`, …), or `*` for all.',
  }),
  active: Type.Boolean({ description: 'false: paused, nothing is queued for it (it resumes from the latest change).' }),
  description: Type.String({ description: 'A note for administrators.' }),
  created: wpDateTime('When the subscription was created, UTC.'),
  modified: wpDateTime('When the subscription was last changed, UTC.'),
};

export const WebhookSchema = component(
  'Webhook',
  closedObject(subscriptionProperties, {
    description: 'A webhook subscription (its secret is shown only once, on creation).',
  }),
);

export const WebhookCreatedSchema = component(
  'WebhookCreated',
  closedObject(
    {
      ...subscriptionProperties,
      secret: Type.String({
        pattern: '^whsec_[A-Za-z0-9+/=]+$',
        description: 'The signing secret (`whsec_` + base64 of 32 bytes): shown only in this answer.',
      }),
    },
    { description: 'A new webhook subscription with its signing secret.' },
  ),
);

export const WebhookListSchema = Type.Array(WebhookSchema, {
  description: 'Every webhook subscription, oldest first.',
});

export const WebhookDeletedSchema = deletedSchema(
  WebhookSchema,
  'The subscription was deleted, with its queued deliveries.',
);

const WebhookAttemptSchema = component(
  'WebhookAttempt',
  closedObject(
    {
      webhook_id: Type.String({ description: 'The `webhook-id` header of the delivery (the same on every retry).' }),
      type: Type.String({ description: 'The event type, e.g. event.updated.' }),
      seq: Type.Integer({ description: 'The change-log seq of the change delivered.' }),
      attempt: Type.Integer({ minimum: 1, description: 'Which attempt of the delivery this was.' }),
      status: Type.String({
        enum: ['succeeded', 'failed'],
        description: 'Whether this attempt got a 2xx answer within the time limit.',
      }),
      delivery_status: Type.String({
        enum: ['pending', 'succeeded', 'failed'],
        description: 'The delivery now: pending (a retry is scheduled), succeeded, or failed (retries exhausted).',
      }),
      response_code: Type.Union([Type.Integer(), Type.Null()], {
        description: 'The HTTP status answered, null when none arrived.',
      }),
      duration_ms: Type.Integer({ minimum: 0, description: 'How long the attempt took.' }),
      error: Type.String({ description: 'Why it failed; empty on success.' }),
      response_body: Type.String({ description: "The first 1 KiB of the answer's body at most." }),
      attempted: wpDateTime('When the attempt started, UTC.'),
      next_attempt: Type.Union([wpDateTime('When the next attempt is due, UTC.'), Type.Null()], {
        description: 'When the delivery is tried again (pending deliveries), else null.',
      }),
    },
    { description: 'One delivery attempt.' },
  ),
);

export const WebhookAttemptListSchema = Type.Array(WebhookAttemptSchema, {
  description: 'The most recent attempts, newest first.',
});
