// Routes one recorded webhook delivery to the handler of its event family.
import type { Deps } from '../deps.ts';

export interface Delivery {
  id: string;
  name: string; // X-GitHub-Event
  payload: Record<string, any>;
}

/** Processes one delivery inside a durable job. Idempotent: a retry repeats no action. */
export async function handleDelivery(deps: Deps, delivery: Delivery): Promise<void> {
  deps.log.debug({ delivery: delivery.id, event: delivery.name }, 'no handler yet');
}
