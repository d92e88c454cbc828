// Types for scripts/dist.mjs (plain JavaScript so `npm start` needs no TypeScript loader).
export declare const ROOT: string;
export declare const DIST_MAIN: string;
export declare function distIsFresh(): boolean;
export declare function buildDist(): void;
