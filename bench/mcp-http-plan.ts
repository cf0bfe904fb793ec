// What the HTTP tools/call benchmark's parent and its servers agree on (imports nothing).

/** The protocol eras served over HTTP. */
export const HTTP_ERAS = ['2025', '2026-07-28'] as const;
export type HttpEra = (typeof HTTP_ERAS)[number];
