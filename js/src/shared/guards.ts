// Reading untrusted values (traits, kernel messages, a recording): the one set of
// checks every normaliser shares. Each returns a typed value or a fallback, never throws.

export type Obj = Record<string, unknown>;

/** A plain object (not an array, not null): something with fields to read. */
export const isObj = (v: unknown): v is Obj =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** `v` if it is a string, else `fallback` ("" unless given). */
export function str(v: unknown): string;
export function str<F>(v: unknown, fallback: F): string | F;
export function str(v: unknown, fallback: unknown = ""): unknown {
  return typeof v === "string" ? v : fallback;
}

/** `v` if it is a string, else null. */
export const optStr = (v: unknown): string | null => str(v, null);

/** `v` if it is a finite number, else `fallback` (0 unless given). */
export function num(v: unknown): number;
export function num<F>(v: unknown, fallback: F): number | F;
export function num(v: unknown, fallback: unknown = 0): unknown {
  return typeof v === "number" && Number.isFinite(v) ? v : fallback;
}

/** `v` if it is an array, else an empty one. */
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** `v` if it is one of `allowed`, else `fallback`. */
export function oneOf<T extends string>(v: unknown, allowed: readonly T[], fallback: T): T {
  return allowed.includes(v as T) ? (v as T) : fallback;
}
