// Value types shared by the sections of the `.github/arbiter.yml` schema.
import { z } from 'zod';

export const seconds = z.number().int().positive();
export const globs = z.array(z.string().min(1));
