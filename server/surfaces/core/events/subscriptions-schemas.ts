/**
 * Request shapes of `/v1/events/subscriptions` (DESIGN §5): an app event type, optionally one
 * resource (a document slug; null or absent = every resource), optionally the team.
 */
import { z } from 'zod';
import { APP_EVENT_TYPES } from '../../../events/app-events.ts';

export const SubscriptionBody = z.strictObject({
  type: z.enum(APP_EVENT_TYPES, { error: `must be a known app event type (${APP_EVENT_TYPES.join(', ')})` }),
  resource_ref: z.string().min(1).max(256).nullable().default(null),
  team_id: z.string().min(1).max(256).optional(),
});
export type SubscriptionInput = z.output<typeof SubscriptionBody>;

export const SubscriptionIdParams = z.object({ subscription_id: z.string().min(1).max(256) });
