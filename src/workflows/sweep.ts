// The periodic sweep: settles siblings whose checks never finish and Changes whose repair never came.
import type { Deps } from '../deps.ts';

export async function runSweep(deps: Deps): Promise<void> {
  deps.log.debug('sweep: nothing to do yet');
}
