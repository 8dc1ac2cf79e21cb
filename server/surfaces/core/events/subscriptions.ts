/**
 * An identity's app event subscriptions (DESIGN §5; research anchor-library-docs B9): which
 * team's events of a type, for one resource or (resource_ref null) all of them, reach its event
 * stream. Documents are team-scoped and identities are not, so an identity may subscribe only in
 * a team it is a member of (TeamService.teamsOf), with a certificate holding the type's scope
 * (docs:read for docs/doc.changed); delivery checks both again.
 */
import { randomUUID } from 'node:crypto';
import type { EventSubscription, SubscriptionInput, SubscriptionList } from '../../../../contract/core/events.ts';
import type { NodeContext } from '../../../context.ts';
import { forbidden, invalid, notFound } from '../../../errors.ts';
import { APP_EVENT_SCOPES } from '../../../teams/scopes.ts';
import type { TeamService } from '../../../teams/service.ts';
import type { IdentityService } from '../identities/service.ts';

const COLUMNS = `subscription_id, type, team_id, resource_ref, created_at`;

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
   * delivery, events/app-events.ts).
   */
  #team(agentId: string, teamId: string | undefined, type: SubscriptionInput['type']): string {
    const identity = this.#identities.row(agentId);
    const teams = this.#teams.teamsOf(identity);
    let chosen: string;
    if (teamId !== undefined) {
      if (!teams.includes(teamId)) throw forbidden(`This identity is not a member of team ${teamId}`);
      chosen = teamId;
    } else if (teams.length === 1) {
      chosen = teams[0] as string;
    } else if (teams.length === 0) {
      throw forbidden('This identity is not a member of any team');
    } else {
      throw invalid([{ loc: ['body', 'team_id'], msg: `required: this identity is a member of ${teams.join(', ')}`, type: 'missing' }]);
    }
    const scope = APP_EVENT_SCOPES[type];
    if (!this.#teams.teamsOf(identity, scope).includes(chosen)) throw forbidden(`This identity's certificate in team ${chosen} lacks the ${scope} scope`);
    return chosen;
  }

  /** Creates the subscription, or returns the one that already exists (`created` false). */
  subscribe(agentId: string, input: SubscriptionInput): { subscription: EventSubscription; created: boolean } {
    const teamId = this.#team(agentId, input.team_id, input.type);
    const { db, clock } = this.#ctx;
    return db.transaction(() => {
      const existing = db
        .prepare(`SELECT ${COLUMNS} FROM event_subscriptions WHERE agent_id = ? AND team_id = ? AND type = ? AND ifnull(resource_ref, '') = ifnull(?, '')`)
        .get(agentId, teamId, input.type, input.resource_ref) as EventSubscription | undefined;
      if (existing) return { subscription: existing, created: false };
      const subscription: EventSubscription = {
        subscription_id: randomUUID(),
        type: input.type,
        team_id: teamId,
        resource_ref: input.resource_ref,
        created_at: clock.now().toISOString(),
      };
      db.prepare(`INSERT INTO event_subscriptions (${COLUMNS}, agent_id) VALUES (?, ?, ?, ?, ?, ?)`).run(
        subscription.subscription_id,
        subscription.type,
        subscription.team_id,
        subscription.resource_ref,
        subscription.created_at,
        agentId,
      );
      return { subscription, created: true };
    })();
  }

  list(agentId: string): SubscriptionList {
    const subscriptions = this.#ctx.db
      .prepare(`SELECT ${COLUMNS} FROM event_subscriptions WHERE agent_id = ? ORDER BY created_at, rowid`)
      .all(agentId) as EventSubscription[];
    return { subscriptions };
  }

  remove(agentId: string, subscriptionId: string): { deleted: true } {
    const { changes } = this.#ctx.db.prepare(`DELETE FROM event_subscriptions WHERE subscription_id = ? AND agent_id = ?`).run(subscriptionId, agentId);
    if (changes === 0) throw notFound(`Subscription ${subscriptionId} not found`);
    return { deleted: true };
  }
}
