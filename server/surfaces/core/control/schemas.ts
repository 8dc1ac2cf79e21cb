import { z } from 'zod';
import { alias } from '../identities/schemas.ts';

export const SIGNALS = ['pause', 'resume', 'interrupt'] as const;
export type Signal = (typeof SIGNALS)[number];

export const ControlBody = z.strictObject({ signal: z.enum(SIGNALS) });
export const ControlParams = z.object({ alias });
