/**
 * An identity's app event subscriptions (DESIGN §5;
 * docs/adr/0006-library-and-document-surfaces.md): which team's events of a type, for one resource
 * or (resource_ref null) all of them, reach its event stream. Documents are team-scoped and
 * identities are not, so an identity may subscribe only in a team it is a member of
 * (TeamService.teamsOf), with a certificate holding the type's scope (docs:read for
 * docs/doc.changed); delivery checks both again.
 */
import { randomUUID } from 'node:crypto';
import type { EventSubscription, SubscriptionInput, SubscriptionList } from '../../../../contract/core/events.ts';
import type { NodeContext } from '../../../context.ts';
import { forbidden, invalid, notFound } from '../../../errors.ts';
import { deleteSubscription, findSubscription, insertSubscription, subscriptionsOf } from '../../../teams/app-event-store.ts';
import { APP_EVENT_SCOPES } from '../../../teams/scopes.ts';
import type { TeamService } from '../../../teams/service.ts';
import type { IdentityService } from '../identities/service.ts';

export class EventSubscriptions {
  readonly #ctx: NodeContext;
  readonly #identities: IdentityService;
  readonly #teams: TeamService;

  constructor(ctx: NodeContext, identities: IdentityService, teams: TeamService) {
    this.#ctx = ctx;
    this.#identities = identities;
    this.#teams = teams;
  }

  /**
   * The team the subscription is for: the one named (if a member), else the only one; the
   * identity's certificate there must hold the scope the event type needs (checked again at
   * delivery, teams/app-events.ts).
   */
  #team(agentId: string, teamId: string | undefined, type: SubscriptionInput['type']): string {
    const identity = this.#identities.row(agentId);
    const teams = this.#teams.teamsOf(identity);
    let chosen: string;
    if (teamId !== undefined) {
      if (!teams.includes(teamId)) throw forbidden('SVC_ERR_TEAM_NOT_MEMBER', `This identity is not a member of team ${teamId}`);
      chosen = teamId;
    } else if (teams.length === 1) {
      chosen = teams[0] as string;
    } else if (teams.length === 0) {
      throw forbidden('SVC_ERR_TEAM_NOT_MEMBER', 'This identity is not a member of any team');
    } else {
      throw invalid('SVC_ERR_VALIDATION', [{ loc: ['body', 'team_id'], msg: `required: this identity is a member of ${teams.join(', ')}`, type: 'missing' }]);
    }
    const scope = APP_EVENT_SCOPES[type];
    if (!this.#teams.teamsOf(identity, scope).includes(chosen))
      throw forbidden('SVC_ERR_SCOPE_MISSING', `This identity's certificate in team ${chosen} lacks the ${scope} scope`);
    return chosen;
  }

  /** Creates the subscription, or returns the one that already exists (`created` false). */
  subscribe(agentId: string, input: SubscriptionInput): { subscription: EventSubscription; created: boolean } {
    const teamId = this.#team(agentId, input.team_id, input.type);
    const { db, clock } = this.#ctx;
    return db.transaction(() => {
      const existing = findSubscription(db, agentId, { team_id: teamId, type: input.type, resource_ref: input.resource_ref });
      if (existing) return { subscription: existing, created: false };
      const subscription: EventSubscription = {
        subscription_id: randomUUID(),
        type: input.type,
        team_id: teamId,
        resource_ref: input.resource_ref,
        created_at: clock.now().toISOString(),
      };
      insertSubscription(db, { ...subscription, agent_id: agentId });
      return { subscription, created: true };
    })();
  }

  list(agentId: string): SubscriptionList {
    return { subscriptions: subscriptionsOf(this.#ctx.db, agentId) };
  }

  remove(agentId: string, subscriptionId: string): { deleted: true } {
    if (!deleteSubscription(this.#ctx.db, agentId, subscriptionId))
      throw notFound('SVC_ERR_SUBSCRIPTION_NOT_FOUND', `Subscription ${subscriptionId} not found`);
    return { deleted: true };
  }
}
