import type * as ClassTransformer from 'class-transformer';
import { type MetadataStorage } from 'class-transformer/types/MetadataStorage';
import { type Constructor } from '../core';

/*
 * class-transformer keeps what its decorators say (`@Type`, `@Transform`, `@Expose`,
 * `@Exclude`) in a storage it does not export from its entry, and has no public reader.
 * This file is the one place agenttool reads it, and
 * test/decorators/dependency-adapters.test.ts fails when class-transformer moves it or
 * changes what it answers.
 */

type StorageModule = { defaultMetadataStorage: MetadataStorage };
type EnumsModule = { TransformationType: typeof ClassTransformer.TransformationType };

let storage: MetadataStorage | undefined;
let plainToClass: ClassTransformer.TransformationType | undefined;

// The storage and the enum, not the whole entry: the entry costs some 8 ms of start-up,
// and only a call that builds its arguments with plainToInstance needs it.
/* eslint-disable @typescript-eslint/no-require-imports -- not exported from the entry */
function transformerStorage(): MetadataStorage {
  storage ??= (require('class-transformer/cjs/storage') as StorageModule).defaultMetadataStorage;
  return storage;
}

function plainToClassType(): ClassTransformer.TransformationType {
  plainToClass ??= (require('class-transformer/cjs/enums') as EnumsModule).TransformationType
    .PLAIN_TO_CLASS;
  return plainToClass;
}

let entry: typeof ClassTransformer | undefined;

/** class-transformer's `plainToInstance`, its entry loaded on the first call. */
export function plainToInstance<T>(cls: new () => T, plain: unknown): T {
  entry ??= require('class-transformer') as typeof ClassTransformer;
  return entry.plainToInstance<T, unknown>(cls, plain);
}
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * True when class-transformer's decorators say something about `cls` or one of the
 * fields `keys` (a strategy, `@Expose`, `@Exclude`, `@Type`, a `@Transform` for
 * plain-to-class): then `plainToInstance` must build it, so its transforms apply.
 */
export function usesTransformer(cls: Constructor, keys: readonly string[]): boolean {
  const target = cls as unknown as () => void;
  const metadata = transformerStorage();
  if (metadata.getStrategy(target) !== 'none') return true;
  if (metadata.getExposedMetadatas(target).length > 0) return true;
  if (metadata.getExcludedMetadatas(target).length > 0) return true;
  return keys.some(
    (key) =>
      metadata.findTypeMetadata(target, key) !== undefined ||
      metadata.findTransformMetadatas(target, key, plainToClassType()).length > 0,
  );
}
