// The schemas that read a receipt's recorded planner inputs back (src/core/planner-inputs.ts) name
// every field their planner takes, at every depth. zod drops a key its schema does not name, so a
// field added to a planner's input and forgotten in its schema replays as a different decision
// (a shipped candidate's `stale[].rejected` did). Checked by the type checker (`tsc`, part of
// `npm test`); the assertions below fail to compile when a field is missing.
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { MergeAnswerInput, ShippedInput } from '../../src/core/plan/after-merge.ts';
import type { WideInput } from '../../src/core/plan/portfolio.ts';
import type { PromotionInput } from '../../src/core/plan/promotion.ts';
import type { ResumeGivenUpInput } from '../../src/core/plan/sweep.ts';
import type {
  MergeAnswerInputs,
  PromotionInputs,
  ResumeGivenUpInputs,
  ShippedInputs,
  WideInputs,
} from '../../src/core/planner-inputs.ts';

/** Every key of any member of a union. */
type KeysOf<T> = T extends unknown ? keyof T : never;
/** The type at `K` in any member of a union that has it. */
type ValueOf<T, K extends PropertyKey> = T extends unknown ? (K extends keyof T ? T[K] : never) : never;

/** The paths of `A`'s keys that `B` lacks, through objects, arrays and unions (never: none). */
type Missing<A, B, At extends string = ''> = A extends readonly (infer X)[]
  ? B extends readonly (infer Y)[]
    ? Missing<X, Y, `${At}[]`>
    : At
  : A extends object
    ? {
        [K in KeysOf<A> & string]-?: K extends KeysOf<B>
          ? Missing<NonNullable<ValueOf<A, K>>, NonNullable<ValueOf<B, K>>, `${At}.${K}`>
          : `${At}.${K}`;
      }[KeysOf<A> & string]
    : never;

describe('every recorded planner input is read back whole', () => {
  it('names every field of its planner’s input', () => {
    expectTypeOf<Missing<PromotionInput, z.infer<typeof PromotionInputs>>>().toEqualTypeOf<never>();
    expectTypeOf<Missing<MergeAnswerInput, z.infer<typeof MergeAnswerInputs>>>().toEqualTypeOf<never>();
    expectTypeOf<Missing<ShippedInput, z.infer<typeof ShippedInputs>>>().toEqualTypeOf<never>();
    expectTypeOf<Missing<ResumeGivenUpInput, z.infer<typeof ResumeGivenUpInputs>>>().toEqualTypeOf<never>();
    expectTypeOf<Missing<WideInput, z.infer<typeof WideInputs>>>().toEqualTypeOf<never>();
  });
});
