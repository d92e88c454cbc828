// The app's own webhook as GitHub records it (app JWT, not an installation token): the list of
// delivery attempts, read newest first with GitHub's cursor paging, and a redelivery of one.
import { z } from 'zod';
import type { HookDeliveryAttempt } from '../core/redelivery.ts';
import type { Octokit } from '../deps.ts';
import { callGitHub } from './errors.ts';
import type { AppHooksPort } from './port.ts';

const Attempt = z.object({
  id: z.number().int(),
  guid: z.string(),
  delivered_at: z.string(),
  redelivery: z.boolean(),
  status: z.string(),
  status_code: z.number().int(),
  event: z.string(),
  action: z.string().nullable().optional(),
});

export class GitHubAppHooks implements AppHooksPort {
  /** `octokit` must be authenticated as the app (Probot's `app.auth()` without an installation). */
  constructor(private readonly octokit: Octokit) {}

  listDeliveries(since: Date, maxPages: number): Promise<HookDeliveryAttempt[]> {
    return callGitHub('list webhook deliveries', async () => {
      const out: HookDeliveryAttempt[] = [];
      let pages = 0;
      // The `link` header's next page carries GitHub's cursor; paginate follows it.
      for await (const page of this.octokit.paginate.iterator('GET /app/hook/deliveries', { per_page: 100 })) {
        pages++;
        let older = false;
        for (const raw of z.array(z.unknown()).catch([]).parse(page.data)) {
          const a = Attempt.safeParse(raw);
          if (!a.success) continue;
          if (Date.parse(a.data.delivered_at) < since.getTime()) {
            older = true;
            continue;
          }
          const { id, guid, delivered_at, redelivery, status, status_code, event, action } = a.data;
          out.push({
            id,
            guid,
            deliveredAt: delivered_at,
            redelivery,
            status,
            statusCode: status_code,
            event,
            action: action ?? null,
          });
        }
        if (older || pages >= maxPages) break;
      }
      return out;
    });
  }

  async redeliver(attemptId: number): Promise<void> {
    await callGitHub('redeliver a webhook delivery', () =>
      this.octokit.request('POST /app/hook/deliveries/{delivery_id}/attempts', { delivery_id: attemptId }),
    );
  }
}
