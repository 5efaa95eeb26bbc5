import type { Linter } from 'eslint';

/** The rooms of src/ as ESLint config blocks (see eslint.boundaries.mjs). */
export declare const boundaries: Linter.Config[];
