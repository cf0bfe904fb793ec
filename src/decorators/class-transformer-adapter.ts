import { TransformationType } from 'class-transformer';
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

let storage: MetadataStorage | undefined;

function transformerStorage(): MetadataStorage {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- not exported from the entry
  storage ??= (require('class-transformer/cjs/storage') as StorageModule).defaultMetadataStorage;
  return storage;
}

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
      metadata.findTransformMetadatas(target, key, TransformationType.PLAIN_TO_CLASS).length > 0,
  );
}
