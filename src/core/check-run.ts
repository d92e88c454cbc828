// What one write of an Arbiter check run says (name, conclusion, texts, buttons, annotations), as
// zod schemas: shared by plans, receipts, the executor and the gateway, and parsed where read back.
import { z } from 'zod';

export const CheckRunButton = z.object({
  label: z.string(), // at most 20 characters
  description: z.string(), // at most 40 characters
  identifier: z.string(), // at most 20 characters
});
export type CheckRunButton = z.infer<typeof CheckRunButton>;

export const CheckRunName = z.enum([
  'Arbiter / gate',
  'Arbiter / acceptance',
  'Arbiter / selection',
  'Arbiter / config',
]);
export type CheckRunName = z.infer<typeof CheckRunName>;

export const CheckRunAnnotation = z.object({
  path: z.string(),
  start_line: z.number().int(),
  end_line: z.number().int(),
  annotation_level: z.enum(['notice', 'warning', 'failure']),
  message: z.string(),
  title: z.string().optional(),
});
export type CheckRunAnnotation = z.infer<typeof CheckRunAnnotation>;

export const CheckRunContent = z.object({
  name: CheckRunName,
  status: z.enum(['in_progress', 'completed']),
  conclusion: z.enum(['success', 'neutral', 'failure', 'action_required']).optional(),
  title: z.string(),
  summary: z.string(),
  text: z.string().optional(),
  buttons: z.array(CheckRunButton).optional(),
  annotations: z.array(CheckRunAnnotation).optional(),
  /** The page the run's "Details" link opens; GitHub requires one for `action_required`. */
  detailsUrl: z.string().optional(),
});
export type CheckRunContent = z.infer<typeof CheckRunContent>;
