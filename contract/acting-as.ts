/**
 * The identity of this node the app acted as, on a team record the team's owner member signed:
 * the app holds no team key, so the node signs every team request it makes as the owner member,
 * naming the identity chosen in the app's switcher inside the signed envelope. The node records
 * that identity, as it was then (a rename or deletion later does not rewrite history), wherever a
 * record names who did something: document versions, proposals, present links. `name` is its
 * display name, else its alias; `address` its address, when it has one.
 */
import { z } from 'zod';

export const ActingAs = z.object({
  agent_id: z.string(),
  alias: z.string(),
  name: z.string(),
  address: z.string().nullable(),
});
export type ActingAs = z.output<typeof ActingAs>;
