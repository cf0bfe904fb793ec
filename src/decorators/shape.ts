import { type Constructor } from '../core';

/** A field's type, normalised: what the schema writer and the instantiator work from. */
export type Shape =
  | { readonly kind: 'string' | 'number' | 'integer' | 'boolean' | 'any' | 'date-time' }
  | { readonly kind: 'bytes'; readonly as: 'buffer' | 'uint8array' }
  | { readonly kind: 'array'; readonly items: Shape }
  | { readonly kind: 'map'; readonly values: Shape }
  | { readonly kind: 'object'; readonly cls: Constructor };

export type EnumValue = string | number | boolean;
